/**
 * The page's reactions (`/page-reacts/v2`): the set the embed configures (`pageReactConfig`,
 * as FastComments has it), their counts, which ones this reader gave, and the toggle. Counts
 * follow the live channel's `page-react` events, which carry a reaction's new total.
 */
import { ApiFailure } from '../shared/api.js';
import type { WidgetHost } from './widget-host.js';
import { sessionStore } from './page-identity.js';

/** One configured reaction: an image (`src`, `selectedSrc` once given) or an emoji, and its name. */
export interface ReactOption {
  readonly id: string;
  readonly src?: string;
  readonly selectedSrc?: string;
  readonly emoji?: string;
  readonly label?: string;
}

/** The longest reaction id the server takes. */
const ID_MAX = 36;

/** The reader's words for a refusal the reactions can meet. */
export function refusalText(c: WidgetHost, err: unknown): string {
  if (err instanceof ApiFailure && err.code === 'banned') return c.t('BANNED');
  if (err instanceof ApiFailure && err.code === 'sso-required') return c.t('SIGN_IN_TO_TAKE_PART');
  return c.errorText(err);
}

/** The `sso` parameter in the flat form the reaction routes read. */
function flatSso(c: WidgetHost): string | undefined {
  const sso = c.config.sso ?? c.config.simpleSSO;
  return sso ? JSON.stringify(sso) : undefined;
}

export class PageReactions {
  /** Totals by reaction id (a Map: ids are readers' words, `__proto__` included). */
  counts = new Map<string, number>();
  /** Reaction ids this reader gave. */
  mine = new Set<string>();
  error: string | undefined;
  /** Live totals seen per id: a toggle's answer adjusts a count only when no total came meanwhile. */
  readonly #seen = new Map<string, number>();
  readonly #busy = new Set<string>();

  constructor(readonly c: WidgetHost) {}

  /** The configured reactions (ids the server would refuse are left out). */
  get options(): ReactOption[] {
    const reacts = (this.c.config['pageReactConfig'] as { reacts?: unknown } | undefined)?.reacts;
    if (!Array.isArray(reacts)) return [];
    return reacts.filter((r): r is ReactOption => typeof r?.id === 'string' && r.id.length > 0 && r.id.length <= ID_MAX);
  }

  #query(): Record<string, string | undefined> {
    const sso = flatSso(this.c);
    return { urlId: this.c.urlId, sso, sessionId: sso ? undefined : sessionStore.get(this.c.tenantId) };
  }

  async load(): Promise<void> {
    if (this.options.length === 0 || this.c.ssr) return;
    try {
      const answer = await this.c.api.call('GET', `/page-reacts/v2/${encodeURIComponent(this.c.tenantId)}`, this.#query());
      this.counts = new Map(Object.entries((answer['counts'] ?? {}) as Record<string, number>));
      this.mine = new Set(answer['reactedIds'] ?? []);
      this.error = undefined;
    } catch (err) {
      this.error = refusalText(this.c, err);
    }
    this.c.changed();
  }

  /** Gives or takes back one reaction. */
  async toggle(id: string): Promise<void> {
    if (this.#busy.has(id)) return;
    this.#busy.add(id);
    const removing = this.mine.has(id);
    const seen = this.#seen.get(id) ?? 0;
    try {
      const answer = await this.c.api.call(removing ? 'DELETE' : 'POST', `/page-reacts/v2/${encodeURIComponent(this.c.tenantId)}`, {
        ...this.#query(),
        id,
        title: removing ? undefined : (this.c.config.pageTitle ?? document.title),
      });
      if (typeof answer['sessionId'] === 'string' && !flatSso(this.c)) sessionStore.set(this.c.tenantId, answer['sessionId']);
      const changed = answer['code'] === undefined;
      if (removing) this.mine.delete(id);
      else this.mine.add(id);
      if (changed && (this.#seen.get(id) ?? 0) === seen) this.counts.set(id, Math.max(0, (this.counts.get(id) ?? 0) + (removing ? -1 : 1)));
      this.error = undefined;
    } catch (err) {
      this.error = refusalText(this.c, err);
    } finally {
      this.#busy.delete(id);
    }
    this.c.changed();
  }

  /** A `page-react` event: one reaction's new total (likes are not shown here). */
  onLive(event: Record<string, any>): void {
    if (event['kind'] !== 'react' || typeof event['reactId'] !== 'string' || typeof event['count'] !== 'number') return;
    this.counts.set(event['reactId'], event['count']);
    this.#seen.set(event['reactId'], (this.#seen.get(event['reactId']) ?? 0) + 1);
  }
}
