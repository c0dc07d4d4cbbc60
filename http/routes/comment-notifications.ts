/**
 * What `POST /api/v1/comments` adds for notifications: the `mentions` its text makes (users of
 * the tenant named `@name`), resolved before the page stores the comment, and the start of the
 * notification job the page wrote with it (docs/notifications.md).
 */
import { MentionsKind } from '../../actors/notify/protocol.js';
import type { NewCommentInput } from '../../actors/page/protocol.js';
import type { AppServices } from '../services.js';

export { startNotifyJob } from '../../actors/notify/index.js';

/** The input with the users its `@names` mean added to `mentions` (given ones first, each user once). */
export async function withMentions(app: AppServices, tenantId: string, input: NewCommentInput): Promise<NewCommentInput> {
  if (!input.comment.includes('@')) return input;
  const found = await app.system.ask(MentionsKind, tenantId, 'resolve', { text: input.comment });
  const known = new Set(input.mentions.map((m) => m.id));
  const added = found.filter((m) => !known.has(m.id));
  return added.length === 0 ? input : { ...input, mentions: [...input.mentions, ...added] };
}
