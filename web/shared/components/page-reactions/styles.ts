/** Styles of the page reactions (web/shared/components/page-reactions); both themes use the widget's colour variables. */
export const PAGE_REACTION_STYLES = `
.reacts{margin:4px 0 8px}
.react{display:inline-flex;gap:6px;align-items:center;border-radius:999px;padding:2px 10px}
.react img{display:block;width:20px;height:20px;object-fit:contain}
`;
