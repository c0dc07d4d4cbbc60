/**
 * The widget's styles, inside its shadow root: the host page's CSS cannot reach in and these
 * cannot leak out. Colours are chosen for WCAG AA contrast in both themes.
 */
export const STYLES = `
:host{display:block}
.fc{--bg:#fff;--fg:#1d1f23;--muted:#4a5260;--line:#d5d9e0;--accent:#0b57d0;--accent-fg:#fff;--err:#b3261e;--chip:#f1f3f6;
font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg);padding:8px}
.fc.dark{--bg:#16181c;--fg:#eceef2;--muted:#b4bac6;--line:#3a3f48;--accent:#8ab4f8;--accent-fg:#10131a;--err:#ffb4ab;--chip:#24272d}
.fc *{box-sizing:border-box}
h2{font-size:1.1em;margin:0}
.bar{display:flex;gap:12px;align-items:center;justify-content:space-between;flex-wrap:wrap;margin-bottom:8px}
button,select,input,textarea{font:inherit;color:inherit}
button{background:var(--chip);border:1px solid var(--line);border-radius:6px;padding:3px 10px;cursor:pointer}
button.primary{background:var(--accent);color:var(--accent-fg);border-color:var(--accent)}
button[aria-pressed=true]{background:var(--accent);color:var(--accent-fg)}
button:disabled{opacity:.6;cursor:default}
:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
select,input,textarea{background:var(--bg);border:1px solid var(--muted);border-radius:6px;padding:6px}
textarea{width:100%;min-height:70px;resize:vertical}
form{display:grid;gap:6px;margin:8px 0}
.row{display:flex;gap:8px;flex-wrap:wrap;align-items:center}
.online{display:flex;gap:4px 12px;flex-wrap:wrap;list-style:none;margin:0 0 8px;padding:0}
.row input{flex:1 1 160px}
label{display:grid;gap:2px;font-size:.9em;color:var(--muted)}
.count,.meta{font-size:.85em;color:var(--muted)}
.err{color:var(--err);font-size:.9em;margin:2px 0}
ul{list-style:none;margin:0;padding:0}
ul ul{margin-inline-start:20px;padding-inline-start:10px;border-inline-start:2px solid var(--line)}
article{padding:8px 0;border-top:1px solid var(--line)}
.head{display:flex;gap:8px;align-items:baseline;flex-wrap:wrap}
.name{font-weight:600}
.body{overflow-wrap:anywhere}
.body p{margin:.3em 0}
.body img{max-width:100%}
.deleted{color:var(--muted);font-style:italic}
.actions{display:flex;gap:6px;flex-wrap:wrap;align-items:center;font-size:.9em}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.notice{padding:8px;border:1px solid var(--line);border-radius:6px}
a{color:var(--accent)}
form.inline{display:inline;margin:0}
`;
