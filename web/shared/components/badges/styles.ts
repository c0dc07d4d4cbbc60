/** Badges and labels beside the commenter's name. */
export const BADGE_STYLES = `
.badges{display:inline-flex;gap:4px;flex-wrap:wrap}
.badge,.label{font-size:.8em;padding:0 6px;border-radius:10px;border:1px solid var(--line);background:var(--chip);color:var(--fg)}
.badge img{vertical-align:middle}
`;
