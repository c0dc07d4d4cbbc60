/**
 * Users of imported authors: an author with an email becomes a user of the tenant the way a
 * new comment's author does (the username claim, which emails nobody). Authors seen before
 * are remembered (a bounded cache; a forgotten one is claimed again, which finds the same
 * user). Two authors of the source may share a name with different emails: the second gets
 * the name told apart by its email's hash, as a new commenter would have to choose another.
 */
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { ActorSystem } from '../../engine/actor-system.js';
import { ApiError } from '../../engine/errors.js';
import { UsernameKind, usernameActorId } from '../user/protocol.js';
import type { ImportComment } from './records.js';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
/** Authors whose user is remembered. */
const CACHE = 50_000;
/** Claims made at once. */
const CLAIMS_AT_ONCE = 64;

/** An author's email as stored (lowercase), or null when none or not valid; `bad` says which. */
export function authorEmail(c: ImportComment): { email: string | null; bad: boolean } {
  const raw = c.authorEmail?.trim() ?? '';
  if (raw === '') return { email: null, bad: false };
  if (!EMAIL.test(raw) || raw.length > 320) return { email: null, bad: true };
  return { email: raw.toLowerCase(), bad: false };
}

/** Makes and remembers the users of authors. */
export class AuthorUsers {
  readonly #system: ActorSystem;
  readonly #tenantId: string;
  readonly #cache = new LRUCache<string, { userId: string | null }>({ max: CACHE });
  created = 0;
  existing = 0;

  constructor(system: ActorSystem, tenantId: string) {
    this.#system = system;
    this.#tenantId = tenantId;
  }

  /** The user id of each author with an email among `comments` (null when no name could be had). */
  async resolve(comments: readonly ImportComment[], onNoName: (c: ImportComment) => void): Promise<Map<string, string | null>> {
    const out = new Map<string, string | null>();
    const todo = new Map<string, ImportComment>();
    for (const c of comments) {
      const { email } = authorEmail(c);
      if (email === null || out.has(email) || todo.has(email)) continue;
      const known = this.#cache.get(email);
      if (known !== undefined) out.set(email, known.userId);
      else todo.set(email, c);
    }
    const list = [...todo];
    for (let i = 0; i < list.length; i += CLAIMS_AT_ONCE) {
      await Promise.all(
        list.slice(i, i + CLAIMS_AT_ONCE).map(async ([email, c]) => {
          const userId = await this.#claim(email, c);
          if (userId === null) onNoName(c);
          this.#cache.set(email, { userId });
          out.set(email, userId);
        }),
      );
    }
    return out;
  }

  async #claim(email: string, c: ImportComment): Promise<string | null> {
    const name = c.authorName.trim().slice(0, 100) || 'Anonymous';
    for (const username of [name, `${name} (${createHash('sha256').update(email).digest('hex').slice(0, 6)})`]) {
      try {
        const claimed = await this.#system.ask(UsernameKind, usernameActorId(this.#tenantId, username), 'claim', { username, email, avatarSrc: c.authorAvatar });
        if (claimed.created) this.created++;
        else this.existing++;
        return claimed.user._id;
      } catch (err) {
        if (!(err instanceof ApiError) || err.code !== 'username-taken') throw err;
      }
    }
    return null;
  }
}
