/** The names of the readers online. */
export const ONLINE_LIST_STYLES = `
.online{display:flex;gap:4px 12px;flex-wrap:wrap;list-style:none;margin:0 0 8px;padding:0}
`;
