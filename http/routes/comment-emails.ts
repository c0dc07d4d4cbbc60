/**
 * The emails of `POST /api/v1/comments?sendEmails=true`: a commenter whose email is new to the
 * tenant gets one welcome email with a link that verifies their comments
 * (`commenter-verify-post`).
 */
import type { CreatedComment, NewCommentInput } from '../../actors/page/protocol.js';
import { SiteKind } from '../../actors/site/protocol.js';
import { admitEmails, enqueueEmail } from '../../email/index.js';
import { clock } from '../../engine/clock.js';
import { ApiError } from '../../engine/errors.js';
import type { AppServices } from '../services.js';

/**
 * The address to welcome, checked before the comment is created: an email no user of the
 * tenant has yet, with room in the outbox (else nothing is created: 503 `email-queue-full`).
 */
export async function welcomeAddress(app: AppServices, tenantId: string, input: NewCommentInput): Promise<string | null> {
  const email = input.commenterEmail?.trim().toLowerCase();
  if (!email || input.userId !== null) return null;
  if ((await app.system.ask(SiteKind, tenantId, 'userIdByEmail', { email })) !== null) return null;
  if (!(await admitEmails(app.system, tenantId, 1))) throw new ApiError('email-queue-full');
  return email;
}

/** The related site of a comment: its `domain`, else its URL's host. */
function commentDomain(comment: Record<string, unknown>): string | null {
  if (typeof comment['domain'] === 'string' && comment['domain'] !== '') return comment['domain'].toLowerCase();
  try {
    return new URL(String(comment['url'])).host.toLowerCase() || null;
  } catch {
    return null;
  }
}

/** Puts the welcome email in the outbox; resolves once it is durable there. */
export async function sendWelcome(app: AppServices, tenantId: string, created: CreatedComment, to: string): Promise<void> {
  const { comment, user } = created;
  if (user === null) return;
  const date = Date.parse(String(comment['date']));
  await enqueueEmail(
    app.system,
    tenantId,
    {
      to,
      emailTemplateId: 'commenter-verify-post',
      domain: commentDomain(comment),
      locale: typeof comment['locale'] === 'string' ? comment['locale'] : null,
      data: {
        comment: {
          commenterName: comment['commenterName'],
          comment: comment['comment'],
          commentHTML: comment['commentHTML'],
          date: Number.isNaN(date) ? null : date,
          pageTitle: comment['pageTitle'] ?? null,
          url: comment['url'],
        },
        verifyPostUrl: app.email.links.verifyUrl(tenantId, user.id, clock.now()),
        removedInDays: null,
        locale: comment['locale'] ?? null,
      },
      transactional: true,
      dedupeKey: `welcome:${to}`,
    },
    { admitted: true },
  );
}
