/** The post, reply and edit forms. */
export const COMMENT_FORM_STYLES = `
textarea{width:100%;min-height:70px;resize:vertical}
form{display:grid;gap:6px;margin:8px 0}
.row input{flex:1 1 160px}
`;
