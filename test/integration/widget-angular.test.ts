/**
 * The official Angular wrapper from npm (`ngx-fastcomments`, unmodified) drives our widget. Its
 * package ships partial Ivy declarations, which need Angular's linker: the page's bundle loads
 * `@angular/compiler`, so they are compiled just in time in the browser, with zone.js for change
 * detection (widget-wrapper-suite.ts has the test).
 *
 * A changed `[config]` input never reaches a mounted widget through this wrapper (2.3.x): its
 * `ngOnChanges` calls `update` only while its status is "script loaded", which it leaves for
 * "done" as soon as it has mounted. So the host app here changes the config by re-creating the
 * wrapper's component (a `@for` tracking the config object), which does reach the widget.
 */
import { bundleApp } from '../fixtures/wrapper-page.js';
import { wrapperSuite } from './widget-wrapper-suite.js';

/** An Angular app: a standalone root component importing the wrapper's module, and a button replacing the config (and so the component). */
const ENTRY = `
import 'zone.js';
import '@angular/compiler';
import { Component, provideZoneChangeDetection } from '@angular/core';
import { bootstrapApplication } from '@angular/platform-browser';
import { FastCommentsModule } from 'ngx-fastcomments';

class App {
  constructor() { this.configs = [window.widgetConfig]; }
  dark() { this.configs = [{ ...this.configs[0], hasDarkBackground: true }]; }
}
const Root = Component({
  selector: 'app-root',
  standalone: true,
  imports: [FastCommentsModule],
  template: '<button type="button" (click)="dark()">Dark theme</button>@for (config of configs; track config) { <lib-fastcomments [config]="config"></lib-fastcomments> }',
})(App);
const root = document.createElement('app-root');
document.getElementById('root').appendChild(root);
bootstrapApplication(Root, { providers: [provideZoneChangeDetection()] }).catch((err) => { throw err; });
`;

wrapperSuite('angular', () => bundleApp(ENTRY), 'remount');
