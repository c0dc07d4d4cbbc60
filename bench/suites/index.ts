/** The registry of benchmark suites. */
import type { Suite } from '../lib/suite.js';
import { engineHotActor } from './engine-hot-actor.js';
import { httpMe } from './http-me.js';

/** Every benchmark suite, in the order `all` runs them. Add new suites here. */
export const SUITES: readonly Suite[] = [engineHotActor, httpMe];
