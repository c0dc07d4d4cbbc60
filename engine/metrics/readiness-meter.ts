/** Readiness as a gauge, refreshed at each scrape by the metrics listener, so alerts can use it. */
import { CountFamily } from './families.js';
import { PREFIX, register } from './registry.js';

const ready = register(new CountFamily('gauge', `${PREFIX}ready`, '1 while the process should take traffic (what GET /readyz answers), 0 otherwise; checked at each scrape.'));
const READY = ready.child();

/** Records the readiness just checked. */
export function setReady(value: boolean): void {
  READY.n = value ? 1 : 0;
}
