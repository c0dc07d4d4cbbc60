/** Styles of the poll (web/shared/components/poll), inside the widget's shadow root; both themes use the widget's colour variables. */
export const POLL_STYLES = `
.poll{border:1px solid var(--line);border-radius:8px;padding:8px;margin:6px 0;gap:4px}
.poll fieldset{border:0;margin:0;padding:0;display:grid;gap:6px}
.poll legend{font-weight:600;padding:0;margin-bottom:4px}
.poll-option{display:grid;grid-template-columns:minmax(0,1fr) minmax(60px,30%) 9em;gap:8px;align-items:center}
.poll input{accent-color:var(--accent)}
.poll-option label{display:flex;gap:6px;align-items:center;color:var(--fg);font-size:1em}
.poll-bar{display:block;height:8px;border-radius:4px;background:var(--chip);border:1px solid var(--line);overflow:hidden}
.poll-bar span{display:block;height:100%;background:var(--accent)}
`;
