/**
 * The widget's styles, inside its shadow root: the host page's CSS cannot reach in and these
 * cannot leak out. Colours are chosen for WCAG AA contrast in both themes. Each component's own
 * rules sit beside it (`components/<name>/styles.ts`) and are composed here.
 */
import { AVATAR_STYLES } from './components/avatar/styles.js';
import { BADGE_STYLES } from './components/badges/styles.js';
import { COMMENT_STYLES } from './components/comment/styles.js';
import { COMMENT_FORM_STYLES } from './components/comment-form/styles.js';
import { MODERATOR_MENU_STYLES } from './components/moderator-menu/styles.js';
import { ONLINE_LIST_STYLES } from './components/online-list/styles.js';
import { PAGE_REACTION_STYLES } from './components/page-reactions/styles.js';
import { POLL_STYLES } from './components/poll/styles.js';
import { THREAD_STYLES } from './components/thread/styles.js';

/** Rules every component shares: the theme's colours, controls, focus, text helpers. */
const BASE_STYLES = `
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
.row{display:flex;gap:8px;flex-wrap:wrap;align-items:center}
label{display:grid;gap:2px;font-size:.9em;color:var(--muted)}
.count,.meta{font-size:.85em;color:var(--muted)}
.err{color:var(--err);font-size:.9em;margin:2px 0}
ul{list-style:none;margin:0;padding:0}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.notice{padding:8px;border:1px solid var(--line);border-radius:6px}
a{color:var(--accent)}
`;

/** The whole style sheet (the server-rendered fallback swaps its leading `:host` rule for `body`). */
export const STYLES = [BASE_STYLES, COMMENT_FORM_STYLES, COMMENT_STYLES, THREAD_STYLES, ONLINE_LIST_STYLES, AVATAR_STYLES, BADGE_STYLES, MODERATOR_MENU_STYLES, POLL_STYLES, PAGE_REACTION_STYLES].join('');
