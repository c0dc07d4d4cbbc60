/**
 * `embed-v2-async.min.js`: the global, plus every entry of `window.fcConfigs` mounted on its
 * `target` and listed in `window.fcUIInstances` (hosts toggle dark mode through them).
 */
import type { WidgetConfig, WidgetHandle } from '../shared/types.js';
import { FastCommentsUI } from './loader.js';

interface Host {
  FastCommentsUI: typeof FastCommentsUI;
  fcConfigs?: Array<WidgetConfig & { target: string }>;
  fcUIInstances?: Array<{ targetElement: Element; config: WidgetConfig; instance: WidgetHandle }>;
}

const host = window as unknown as Host;
host.FastCommentsUI = FastCommentsUI;

function mountAll(): void {
  host.fcUIInstances ??= [];
  for (const config of host.fcConfigs ?? []) {
    const targetElement = document.querySelector(config.target);
    if (!(targetElement instanceof HTMLElement)) continue;
    host.fcUIInstances.push({ targetElement, config, instance: FastCommentsUI(targetElement, config) });
  }
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', mountAll);
else mountAll();
