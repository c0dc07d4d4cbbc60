/** The page's styles (the shell's policy admits inline styles; scripts come from this server only). */
export const STYLES = `
.page{display:grid;grid-template-columns:minmax(0,1fr) 22rem;grid-template-areas:"top top" "main context";gap:0 1.5rem;max-width:80rem;margin:0 auto;padding:1rem}
.top{grid-area:top;display:flex;flex-wrap:wrap;align-items:baseline;gap:.5rem 1.5rem;border-bottom:1px solid #d0d0d7;margin-bottom:1rem}
.top h1{font-size:1.5rem;margin:.5rem 0}
.main{grid-area:main;min-width:0}
.context{grid-area:context;background:#fff;border:1px solid #d0d0d7;border-radius:8px;padding:0 1rem 1rem;align-self:start;position:sticky;top:1rem;max-height:calc(100vh - 2rem);overflow:auto}
.context h2{font-size:1.1rem}.context h3{font-size:.95rem;margin:1rem 0 .3rem}
.context blockquote{margin:0;padding:.3rem .8rem;border-inline-start:3px solid #d0d0d7}
.muted{color:#555}
.live{font-size:.9rem;color:#8a4b00}.live.on{color:#0b6b2f}
.tabs{display:flex;flex-wrap:wrap;gap:.25rem;border-bottom:2px solid #d0d0d7}
.tabs [role=tab]{border:0;background:none;padding:.6rem .9rem;font:inherit;color:#1d1d1f;cursor:pointer;border-bottom:3px solid transparent;margin-bottom:-2px}
.tabs [role=tab][aria-selected=true]{border-bottom-color:#1a56db;font-weight:600;color:#1a56db}
.search{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center;margin:1rem 0}
.search input{flex:1;min-width:12rem;font:inherit;padding:.4rem .6rem;border:1px solid #767676;border-radius:6px}
button{font:inherit;padding:.35rem .8rem;border:1px solid #767676;border-radius:6px;background:#fff;color:#1d1d1f;cursor:pointer}
button:disabled{opacity:.6;cursor:default}
button.primary{background:#1a56db;border-color:#1a56db;color:#fff}
button.danger{border-color:#b42318;color:#b42318}
button.danger[type=submit]{background:#b42318;color:#fff}
.bulk{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center;padding:.5rem 0}
.cards{list-style:none;margin:0;padding:0}
.card>article{background:#fff;border:1px solid #d0d0d7;border-radius:8px;padding:.6rem 1rem;margin:.6rem 0}
.card.focused>article{border-color:#1a56db;box-shadow:0 0 0 1px #1a56db}
.card-head{display:flex;flex-wrap:wrap;gap:.3rem .7rem;align-items:baseline}
.card-head h3{font-size:1rem;margin:0}
.states{list-style:none;display:flex;flex-wrap:wrap;gap:.3rem;margin:.4rem 0;padding:0}
.states li{font-size:.8rem;padding:.05rem .5rem;border-radius:1rem;background:#fff4e5;color:#7a3e00}
.text{overflow-wrap:anywhere}
.actions{display:flex;flex-wrap:wrap;gap:.4rem;margin-top:.5rem}
.export,.keys{margin-top:2rem}.export h2,.keys h2{font-size:1.1rem}
dialog{border:1px solid #767676;border-radius:8px;max-width:32rem;padding:1rem 1.5rem}
dialog::backdrop{background:rgba(0,0,0,.4)}
.option{display:block;margin:.5rem 0}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
@media (max-width:60rem){.page{grid-template-columns:1fr;grid-template-areas:"top" "main" "context"}.context{position:static;max-height:none}}
`;
