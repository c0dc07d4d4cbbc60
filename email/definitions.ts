/**
 * The built-in email templates: every valid `emailTemplateId`, with its default EJS, default
 * translations (`TEXT` inside a template; `SUBJECT` is the subject line, itself EJS) and test
 * data (the locals a real send provides, with made-up values). Ids and test data follow the
 * FastComments documentation. A tenant's own template replaces the default EJS and may
 * override translations per locale; selection is in actors/email/template-model.ts.
 *
 * Adding an email: add its definition here, then send it with `enqueueEmail` (docs/email.md).
 */

/** One definition, in the API's `EmailTemplateDefinition` shape. */
export interface EmailTemplateDefinition {
  readonly emailTemplateId: string;
  readonly defaultEJS: string;
  readonly defaultTranslationsByLocale: Readonly<Record<string, Readonly<Record<string, string>>>>;
  readonly defaultTestData: Readonly<Record<string, unknown>>;
}

/** The locale used when a recipient's locale has no translations. */
export const DEFAULT_LOCALE = 'en_us';

const FOOTER = `
<p style="color:#777;font-size:12px"><%= TEXT.FOOTER %>
<% if (locals.unsubscribeUrl) { %> <a href="<%= unsubscribeUrl %>"><%= TEXT.UNSUBSCRIBE %></a><% } %></p>`;

const layout = (body: string): string => `<!doctype html>
<html><body style="font-family:sans-serif;max-width:640px;margin:auto">
${body.trim()}
${FOOTER.trim()}
</body></html>
`;

const COMMENT_QUOTE = `<blockquote style="border-left:3px solid #ccc;padding-left:12px"><b><%= comment.commenterName %></b><br><%- comment.commentHTML %></blockquote>`;

const sampleComment = (commenterName: string, text: string) => ({
  commenterName,
  comment: text,
  commentHTML: text,
  date: 1588812198540,
  pageTitle: 'Some Page Title',
  url: 'https://example.com/some-page',
});

/** A list of comments (`name`: the local holding them), each with its page and link, and how many more there are. */
const LISTED_COMMENTS = (name: string) => `<% for (const c of ${name}) { %>
<blockquote style="border-left:3px solid #ccc;padding-left:12px"><b><%= c.commenterName %></b><% if (c.pageTitle) { %> <%= TEXT.ON %> <i><%= c.pageTitle %></i><% } %><br><%- c.commentHTML %><br><a href="<%= c.viewCommentUrl %>"><%= TEXT.VIEW %></a></blockquote>
<% } %>
<% if (moreCount > 0) { %><p><%= TEXT.MORE.replace('{{count}}', moreCount) %></p><% } %>`;

/** A comment as notification emails list it. */
const listedComment = (commenterName: string, text: string) => ({ ...sampleComment(commenterName, text), viewCommentUrl: 'https://example.com/some-page#fast-comments-jt=some-id' });

/** Every definition, by id. */
export const DEFINITIONS: readonly EmailTemplateDefinition[] = [
  {
    // Sent to a commenter whose email is new to the tenant (POST /api/v1/comments?sendEmails=true).
    emailTemplateId: 'commenter-verify-post',
    defaultEJS: layout(`
<h2><%= TEXT.INTRO %> <%= comment.commenterName %>,</h2>
<p><%= TEXT.WELCOME %></p>
${COMMENT_QUOTE}
<p><a href="<%= verifyPostUrl %>" style="padding:8px 16px;background:#2a6;color:#fff;text-decoration:none"><%= TEXT.VERIFY %></a></p>
<% if (removedInDays) { %><p><%= TEXT.REMOVED_IN_DAYS.replace('{{days}}', removedInDays) %></p><% } %>`),
    defaultTranslationsByLocale: {
      en_us: {
        SUBJECT: 'Please confirm your comment on <%= domain %>',
        INTRO: 'Welcome',
        WELCOME: 'Thanks for your comment! Confirm that it is yours, and your comments will show as verified.',
        VERIFY: 'Confirm my comment',
        REMOVED_IN_DAYS: 'Unverified comments are removed after {{days}} days.',
        FOOTER: 'You receive this email because this address was given with a comment.',
        UNSUBSCRIBE: 'Unsubscribe',
      },
    },
    defaultTestData: {
      comment: sampleComment('Alexander', 'This is my comment.'),
      verifyPostUrl: 'https://example.com/verify',
      unsubscribeUrl: 'https://example.com/unsubscribe',
      domain: 'example.com',
      removedInDays: null,
      locale: DEFAULT_LOCALE,
    },
  },
  {
    emailTemplateId: 'commenter-verify-vote',
    defaultEJS: layout(`
<h2><%= TEXT.INTRO %> <%= commenterName %>,</h2>
<p><%= TEXT.BODY %></p>
<blockquote style="border-left:3px solid #ccc;padding-left:12px"><b><%= vote.commenterName %></b><br><%= vote.comment %></blockquote>
<p><a href="<%= verifyUrl %>"><%= TEXT.VERIFY %></a></p>`),
    defaultTranslationsByLocale: {
      en_us: {
        SUBJECT: 'Please confirm your vote',
        INTRO: 'Hi',
        BODY: 'Confirm your vote on this comment:',
        VERIFY: 'Confirm my vote',
        FOOTER: 'You receive this email because this address was given with a vote.',
        UNSUBSCRIBE: 'Unsubscribe',
      },
    },
    defaultTestData: {
      vote: { commenterName: 'Devon', comment: 'This is my comment. I totally left it intentionally. Yup.', date: 1588812198540 },
      commenterName: 'Devon',
      url: 'https://example.com/some-page',
      verifyUrl: 'https://example.com/verify',
      unsubscribeUrl: 'https://example.com/unsubscribe',
      removedInDays: 3,
      tenant: { name: 'Example', removeUnverifiedComments: true },
      locale: DEFAULT_LOCALE,
    },
  },
  {
    emailTemplateId: 'comment-user-mention',
    defaultEJS: layout(`
<h2><%= INTRO %></h2>
<p><%= TEXT.BODY %> <% if (comment.pageTitle) { %><b><%= comment.pageTitle %></b><% } %></p>
${COMMENT_QUOTE}
<p><a href="<%= viewCommentUrl %>"><%= TEXT.VIEW %></a></p>`),
    defaultTranslationsByLocale: {
      en_us: {
        SUBJECT: '<%= comment.commenterName %> mentioned you',
        BODY: 'You were mentioned in a comment on',
        VIEW: 'View the comment',
        FOOTER: 'You receive this email because someone mentioned you.',
        UNSUBSCRIBE: 'Unsubscribe',
      },
    },
    defaultTestData: {
      comment: sampleComment('Alexander', 'Hey @winrid I wanted you to see this.'),
      username: 'winrid',
      INTRO: 'Hey winrid,',
      viewCommentUrl: 'https://example.com/some-page#comment',
      unsubscribeUrl: 'https://example.com/unsubscribe',
      canReplyByEmail: false,
      tenant: { name: 'Example', removeUnverifiedComments: true },
      locale: DEFAULT_LOCALE,
    },
  },
  {
    // POST /api/v1/moderators/:id/send-invite: the link accepts the invitation (30 days).
    emailTemplateId: 'moderator-invite',
    defaultEJS: layout(`
<h2><%= TEXT.INTRO %> <%= moderatorName %>,</h2>
<p><%= TEXT.BODY.replace('{{fromName}}', fromName).replace('{{tenantName}}', tenantName) %></p>
<p><a href="<%= inviteUrl %>" style="padding:8px 16px;background:#2a6;color:#fff;text-decoration:none"><%= TEXT.ACCEPT %></a></p>
<p><%= TEXT.EXPIRES %></p>`),
    defaultTranslationsByLocale: {
      en_us: {
        SUBJECT: '<%= fromName %> invites you to moderate comments',
        INTRO: 'Hi',
        BODY: '{{fromName}} at {{tenantName}} is inviting you to be a moderator of their comments.',
        ACCEPT: 'Accept the invitation',
        EXPIRES: 'This invitation expires in 30 days.',
        FOOTER: 'You receive this email because someone invited this address to moderate comments.',
        UNSUBSCRIBE: 'Unsubscribe',
      },
    },
    defaultTestData: {
      moderatorName: 'Alexander',
      fromName: 'Bob',
      tenantName: 'Example',
      inviteUrl: 'https://example.com/auth/moderator-invite/x',
      unsubscribeUrl: 'https://example.com/unsubscribe',
      locale: DEFAULT_LOCALE,
    },
  },
  {
    // POST /api/v1/tenant-users/:id/send-login-link: the link signs the tenant user in (30 days, once).
    emailTemplateId: 'tenant-user-login-link',
    defaultEJS: layout(`
<h2><%= TEXT.INTRO %> <%= username %>,</h2>
<p><%= TEXT.BODY.replace('{{tenantName}}', tenantName) %></p>
<p><a href="<%= loginUrl %>" style="padding:8px 16px;background:#2a6;color:#fff;text-decoration:none"><%= TEXT.SIGN_IN %></a></p>
<p><%= TEXT.EXPIRES %></p>`),
    defaultTranslationsByLocale: {
      en_us: {
        SUBJECT: 'Your sign-in link for <%= tenantName %>',
        INTRO: 'Hi',
        BODY: 'Use this link to sign in to {{tenantName}}.',
        SIGN_IN: 'Sign in',
        EXPIRES: 'The link works once, for 30 days. If you did not expect it, ignore this email.',
        FOOTER: 'You receive this email because you are a user of this site.',
        UNSUBSCRIBE: 'Unsubscribe',
      },
    },
    defaultTestData: {
      username: 'alexander',
      tenantName: 'Example',
      loginUrl: 'https://example.com/auth/login-link/x',
      unsubscribeUrl: 'https://example.com/unsubscribe',
      locale: DEFAULT_LOCALE,
    },
  },
  {
    // The hourly batch of replies to a user's comments (docs/notifications.md).
    emailTemplateId: 'comment-reply-digest',
    defaultEJS: layout(`
<h2><%= TEXT.INTRO %> <%= username %>,</h2>
<p><%= TEXT.BODY.replace('{{count}}', replyCount) %></p>
${LISTED_COMMENTS('replies')}`),
    defaultTranslationsByLocale: {
      en_us: {
        SUBJECT: '<%= replyCount === 1 ? "A new reply to your comment" : replyCount + " new replies to your comments" %>',
        INTRO: 'Hi',
        BODY: 'New replies to your comments: {{count}}.',
        ON: 'on',
        VIEW: 'View the reply',
        MORE: 'And {{count}} more.',
        FOOTER: 'You receive this email because someone replied to your comment.',
        UNSUBSCRIBE: 'Unsubscribe',
      },
    },
    defaultTestData: {
      username: 'winrid',
      replyCount: 2,
      replies: [listedComment('Devon', 'I agree with you.'), listedComment('Bob', 'Not so sure about that.')],
      moreCount: 0,
      unsubscribeUrl: 'https://example.com/unsubscribe',
      locale: DEFAULT_LOCALE,
    },
  },
  {
    // A new top-level comment on a page the user subscribed to, emailed at once.
    emailTemplateId: 'page-subscription-comment',
    defaultEJS: layout(`
<h2><%= TEXT.INTRO %> <%= username %>,</h2>
<p><%= TEXT.BODY %> <b><%= pageTitle || url %></b></p>
${COMMENT_QUOTE}
<p><a href="<%= viewCommentUrl %>"><%= TEXT.VIEW %></a></p>`),
    defaultTranslationsByLocale: {
      en_us: {
        SUBJECT: 'New comment on <%= pageTitle || url %>',
        INTRO: 'Hi',
        BODY: 'There is a new comment on a page you follow:',
        VIEW: 'View the comment',
        FOOTER: 'You receive this email because you subscribed to this page.',
        UNSUBSCRIBE: 'Unsubscribe',
      },
    },
    defaultTestData: {
      comment: sampleComment('Alexander', 'First!'),
      username: 'winrid',
      pageTitle: 'Some Page Title',
      url: 'https://example.com/some-page',
      viewCommentUrl: 'https://example.com/some-page#fast-comments-jt=some-id',
      unsubscribeUrl: 'https://example.com/unsubscribe',
      locale: DEFAULT_LOCALE,
    },
  },
  {
    // New top-level comments on subscribed pages, gathered hourly or daily (`notificationFrequency`).
    emailTemplateId: 'page-subscription-digest',
    defaultEJS: layout(`
<h2><%= TEXT.INTRO %> <%= username %>,</h2>
<p><%= (daily ? TEXT.BODY_DAILY : TEXT.BODY_HOURLY).replace('{{count}}', commentCount) %></p>
${LISTED_COMMENTS('comments')}`),
    defaultTranslationsByLocale: {
      en_us: {
        SUBJECT: '<%= commentCount === 1 ? "A new comment" : commentCount + " new comments" %> on pages you follow',
        INTRO: 'Hi',
        BODY_HOURLY: 'New comments on pages you follow, this past hour: {{count}}.',
        BODY_DAILY: 'New comments on pages you follow, today: {{count}}.',
        ON: 'on',
        VIEW: 'View the comment',
        MORE: 'And {{count}} more.',
        FOOTER: 'You receive this email because you subscribed to these pages.',
        UNSUBSCRIBE: 'Unsubscribe',
      },
    },
    defaultTestData: {
      username: 'winrid',
      commentCount: 2,
      comments: [listedComment('Devon', 'Great article.'), listedComment('Bob', 'Thanks for writing this.')],
      moreCount: 0,
      daily: false,
      unsubscribeUrl: 'https://example.com/unsubscribe',
      locale: DEFAULT_LOCALE,
    },
  },
  {
    emailTemplateId: 'tenant-comment-digest',
    defaultEJS: layout(`
<h2><%= TEXT.BANNER %></h2>
<p><%= TEXT.NEW_COMMENTS %>: <%= stats.newCommentsCount %></p>
<% for (const c of comments) { %>
<blockquote style="border-left:3px solid #ccc;padding-left:12px"><b><%= c.commenterName %></b><br><%- c.commentHTML %></blockquote>
<% } %>`),
    defaultTranslationsByLocale: {
      en_us: {
        SUBJECT: 'Your comment digest',
        BANNER: 'Comment digest',
        NEW_COMMENTS: 'New comments',
        FOOTER: 'You receive this email as an administrator of this site.',
        UNSUBSCRIBE: 'Unsubscribe',
      },
    },
    defaultTestData: {
      stats: { newCommentsCount: 12, approvedCommentsCount: 10, spamCommentsCount: 2, newUsersCount: 3 },
      commentCount: 12,
      hasCommentsNeedsReview: true,
      comments: [
        { commenterName: 'Devon', commentHTML: 'This is a very recent comment that needs approval.', date: 1588812198540, locale: DEFAULT_LOCALE, url: 'https://example.com/a' },
        { commenterName: 'Bob', commentHTML: 'This is a kind of recent comment that needs approval.', date: 1588812198540, locale: DEFAULT_LOCALE, url: 'https://example.com/b' },
      ],
      unsubscribeUrl: 'https://example.com/unsubscribe',
      locale: DEFAULT_LOCALE,
    },
  },
];

const BY_ID = new Map(DEFINITIONS.map((d) => [d.emailTemplateId, d]));

/** The definition of an id, or undefined when the id is not a valid `emailTemplateId`. */
export function definitionOf(emailTemplateId: string): EmailTemplateDefinition | undefined {
  return BY_ID.get(emailTemplateId);
}

/**
 * The translations a render sees: the defaults of the locale (English when it has none), then
 * the tenant's overrides for that locale.
 */
export function translationsFor(
  definition: EmailTemplateDefinition,
  locale: string | null | undefined,
  overridesByLocale: Readonly<Record<string, Readonly<Record<string, string>>>> | undefined,
): Record<string, string> {
  const wanted = locale ?? DEFAULT_LOCALE;
  const known = definition.defaultTranslationsByLocale[wanted] !== undefined ? wanted : DEFAULT_LOCALE;
  return {
    ...definition.defaultTranslationsByLocale[known],
    ...overridesByLocale?.[known],
    ...(known === wanted ? {} : overridesByLocale?.[wanted]),
  };
}
