/**
 * The moderation page's entry (bundled by web/build.mjs into `moderation.min.js`): reads what
 * the server put in the shell (the moderator, the API's paths, the strings in the reader's
 * language) and mounts the page.
 */
import { render } from 'preact';
import { App } from './app/app.js';
import type { PageConfig } from './model/types.js';
import { STYLES } from './styles.js';

function start(): void {
  const data = document.getElementById('moderation-config');
  const root = document.getElementById('moderation-app');
  if (data === null || root === null) return;
  const config = JSON.parse(data.textContent ?? '{}') as PageConfig;
  const style = document.createElement('style');
  style.textContent = STYLES;
  document.head.appendChild(style);
  root.textContent = '';
  render(<App config={config} />, root);
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
else start();
