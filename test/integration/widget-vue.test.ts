/**
 * The official Vue 3 wrapper from npm (`fastcomments-vue-next`, unmodified) drives our widget:
 * bundled with Vue by esbuild (widget-wrapper-suite.ts has the test).
 */
import { bundleApp } from '../fixtures/wrapper-page.js';
import { wrapperSuite } from './widget-wrapper-suite.js';

/** A Vue app: the wrapper's component with a reactive config, and a button replacing that config. */
const ENTRY = `
import { createApp, h, shallowRef } from 'vue';
import { FastComments } from 'fastcomments-vue-next';
const config = shallowRef(window.widgetConfig);
createApp({
  setup() {
    return () => h('div', [
      h('button', { type: 'button', onClick: () => { config.value = { ...config.value, hasDarkBackground: true }; } }, 'Dark theme'),
      h(FastComments, { config: config.value }),
    ]);
  },
}).mount('#root');
`;

wrapperSuite('vue', () => bundleApp(ENTRY, { __VUE_OPTIONS_API__: 'true', __VUE_PROD_DEVTOOLS__: 'false', __VUE_PROD_HYDRATION_MISMATCH_DETAILS__: 'false' }));
