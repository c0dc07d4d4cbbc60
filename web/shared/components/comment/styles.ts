/** One comment: its head, body and actions. */
export const COMMENT_STYLES = `
article{padding:8px 0;border-top:1px solid var(--line)}
.head{display:flex;gap:8px;align-items:baseline;flex-wrap:wrap}
.name{font-weight:600}
.body{overflow-wrap:anywhere}
.body p{margin:.3em 0}
.body img{max-width:100%}
.deleted{color:var(--muted);font-style:italic}
.actions{display:flex;gap:6px;flex-wrap:wrap;align-items:center;font-size:.9em}
form.inline{display:inline;margin:0}
`;
