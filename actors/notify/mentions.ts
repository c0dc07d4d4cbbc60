/**
 * `@mentions`: which users of the tenant a comment's `@names` mean. A name matches a user whose
 * `displayName` is exactly it, else whose `username` is exactly it, else a commenter whose
 * username is it ignoring case and spacing (the username claim); display names and usernames
 * may be several words, so `@Ann Lee said` tries "Ann Lee said", "Ann Lee", then "Ann", and
 * the longest that matches wins. Several users with the same name: the oldest (lowest id).
 */
import { Actor, type Handlers } from '../../engine/actor.js';
import type { CommentMention } from '../page/comment-doc.js';
import { type UserDoc, USERNAME_CLAIMS, type UsernameClaimDoc, usernameActorId, USERS } from '../user/protocol.js';
import { getMany } from './get-many.js';
import type { MentionsProtocol } from './protocol.js';

/** `@names` looked at per comment, words per name, and the longest name. */
export const MENTION_LIMITS = { names: 10, words: 3, nameChars: 100 } as const;

/** An `@` that starts a mention: at the start, or after a space or an opening mark (not inside an email address). */
const MENTION_START = /(?:^|[\s([{"'>])@(?=[^\s@])/g;
const TRAILING_MARKS = /[.,!?;:)\]}'"]+$/;

/** The candidate names of each `@` of `text` (at most `MENTION_LIMITS.names`), shortest first. */
export function mentionCandidates(text: string): string[][] {
  const out: string[][] = [];
  for (const match of text.matchAll(MENTION_START)) {
    if (out.length >= MENTION_LIMITS.names) break;
    const rest = text.slice(match.index + match[0].length).split('\n', 1)[0]!;
    const words = rest.split(/\s+/).filter((w) => w !== '').slice(0, MENTION_LIMITS.words);
    const candidates: string[] = [];
    for (let i = 1; i <= words.length; i++) {
      const name = words.slice(0, i).join(' ').replace(TRAILING_MARKS, '');
      if (name !== '' && name.length <= MENTION_LIMITS.nameChars && !candidates.includes(name)) candidates.push(name);
    }
    if (candidates.length > 0) out.push(candidates);
  }
  return out;
}

/** The user a name means, by the rules above, among users found by display name, username and claim. */
function pick(name: string, byDisplay: readonly UserDoc[], byUsername: readonly UserDoc[], claimed: ReadonlyMap<string, UserDoc>): UserDoc | undefined {
  const oldest = (users: UserDoc[]) => users.sort((a, b) => (a._id < b._id ? -1 : 1))[0];
  return oldest(byDisplay.filter((u) => u.displayName === name)) ?? oldest(byUsername.filter((u) => u.username === name)) ?? claimed.get(name);
}

/**
 * Resolves the `@names` of comments for one tenant. It owns nothing and writes nothing: it
 * reads users and username claims from storage, and answers at once.
 */
export class MentionsActor extends Actor<MentionsProtocol> {
  override async onStart(): Promise<void> {}

  readonly handlers: Handlers<MentionsProtocol> = {
    resolve: async ({ text }) => {
      this.allowUnconfirmed();
      const groups = mentionCandidates(text);
      if (groups.length === 0) return [];
      const tenantId = this.id;
      const names = [...new Set(groups.flat())];
      const [byDisplay, byUsername, claims] = await Promise.all([
        this.store.find<UserDoc>(USERS, { tenantId, displayName: { $in: names } }),
        this.store.find<UserDoc>(USERS, { tenantId, username: { $in: names } }),
        Promise.all(names.map(async (name) => [name, await this.store.get<UsernameClaimDoc>(USERNAME_CLAIMS, usernameActorId(tenantId, name))] as const)),
      ]);
      const claimIds = claims.flatMap(([, claim]) => (claim !== undefined && claim.tenantId === tenantId ? [claim.userId] : []));
      const usersById = new Map([...(await getMany<UserDoc>(this.store, USERS, claimIds))].filter(([, u]) => u.tenantId === tenantId));
      const claimed = new Map<string, UserDoc>();
      for (const [name, claim] of claims) {
        const user = claim === undefined ? undefined : usersById.get(claim.userId);
        if (user !== undefined) claimed.set(name, user);
      }
      const mentions: CommentMention[] = [];
      for (const candidates of groups) {
        for (let i = candidates.length - 1; i >= 0; i--) {
          const name = candidates[i]!;
          const user = pick(name, byDisplay, byUsername, claimed);
          if (user === undefined) continue;
          if (!mentions.some((m) => m.id === user._id)) mentions.push({ id: user._id, tag: `@${name}`, rawTag: `@${name}`, type: user.kind === 'sso' ? 'sso' : 'user', sent: false });
          break;
        }
      }
      return mentions;
    },
  };
}
