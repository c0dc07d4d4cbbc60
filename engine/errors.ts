/**
 * The one error catalog: every code the server can answer with, its HTTP status and its
 * default message. `http/respond.ts` is the one place that turns these into `APIError`
 * bodies, and `test/unit/engine/errors.test.ts` checks that every code is documented in
 * `docs/errors.md`.
 */
export const ERRORS = {
  // Authentication and tenancy
  'missing-tenant-id': { status: 400, message: 'The tenantId query parameter or X-TENANT-ID header is required.' },
  'invalid-tenant-id': { status: 401, message: 'No tenant has this id.' },
  'tenant-id-mismatch': { status: 403, message: 'The tenant id does not match the credential.' },
  'missing-api-key': { status: 401, message: 'An API key (X-API-KEY header or API_KEY query) or a bearer token is required.' },
  'invalid-api-key': { status: 401, message: 'The API key is not valid for this tenant.' },
  'invalid-token': { status: 401, message: 'The access token is not valid.' },
  'token-expired': { status: 401, message: 'The access token has expired.' },
  'token-revoked': { status: 401, message: 'The access token has been revoked.' },
  'insufficient-scope': { status: 403, message: 'The access token lacks the scope this request needs.' },
  // Request shape
  'not-found': { status: 404, message: 'Not found.' },
  'route-not-found': { status: 404, message: 'No route matches this method and path.' },
  'method-not-allowed': { status: 405, message: 'This path does not accept this method.' },
  'invalid-json': { status: 400, message: 'The request body is not valid JSON.' },
  'body-too-large': { status: 413, message: 'The request body is larger than the server accepts.' },
  'unsupported-media-type': { status: 415, message: 'The request body must be application/json.' },
  'unexpected-param': { status: 400, message: 'The request has a field this endpoint does not accept.' },
  'missing-param': { status: 400, message: 'A required field is missing.' },
  'invalid-param': { status: 400, message: 'A field has the wrong type or value.' },
  'invalid-path-encoding': { status: 400, message: 'A path segment is not valid percent-encoding.' },
  'bad-request': { status: 400, message: 'The request is malformed HTTP.' },
  'uri-too-long': { status: 414, message: 'The request URL is longer than the server accepts.' },
  'headers-too-large': { status: 431, message: 'The request headers are larger than the server accepts.' },
  'invalid-unicode': { status: 400, message: 'The request holds text that is not well-formed Unicode.' },
  'field-too-large': { status: 400, message: 'A field is larger than the server accepts.' },
  'invalid-url': { status: 400, message: 'A link must be an absolute http(s) URL (images may also be a path starting with /).' },
  // Credits
  'credits-exhausted': { status: 402, message: "The tenant's package allowance of API credits for this month is spent." },
  // Domain configurations
  'domain-config-exists': { status: 409, message: 'A configuration for this domain already exists.' },
  'invalid-domain': { status: 400, message: 'The domain is not a valid host name.' },
  // Identity, teams and white-label tenancy (docs/identity.md)
  'user-exists': { status: 409, message: 'A user with this id already exists.' },
  'username-required': { status: 400, message: 'A username is required.' },
  'email-required': { status: 400, message: 'An email is required.' },
  'email-taken': { status: 409, message: 'This email is already used where it must be unique.' },
  'sign-up-date-in-future': { status: 400, message: 'signUpDate may not be in the future.' },
  'unsupported-locale': { status: 400, message: 'The locale is not a supported locale.' },
  'tenant-id-immutable': { status: 400, message: 'The tenant of this object cannot change.' },
  'id-immutable': { status: 400, message: 'The id in the body differs from the id in the path; an id cannot change.' },
  'too-many-badges': { status: 400, message: 'badgeConfig.badgeIds names more badges than allowed.' },
  'tenant-user-limit-reached': { status: 403, message: "The tenant has as many tenant users as its package's maxTenantUsers allows." },
  'login-link-invalid': { status: 404, message: 'This login link does not exist.' },
  'login-link-used': { status: 410, message: 'This login link was already used; ask for a new one.' },
  'login-link-expired': { status: 410, message: 'This login link has expired; ask for a new one.' },
  'not-signed-in': { status: 401, message: 'No tenant user is signed in on this browser.' },
  'name-required': { status: 400, message: 'A name is required.' },
  'moderator-email-taken': { status: 409, message: 'Another moderator of this tenant has this email.' },
  'from-name-required': { status: 400, message: 'fromName is required.' },
  'from-name-invalid': { status: 400, message: 'fromName must be at most 100 characters.' },
  'invite-invalid': { status: 404, message: 'This invitation does not exist.' },
  'invite-expired': { status: 410, message: 'This invitation has expired.' },
  'name-invalid': { status: 400, message: 'The name must be 1 to 200 characters.' },
  'unauthorized': { status: 403, message: "The credential's tenant does not manage this tenant." },
  'no-package': { status: 403, message: 'The tenant has no package in use.' },
  'invalid-package': { status: 400, message: 'packageId is not a package of this tenant.' },
  'white-labeling-not-allowed': { status: 403, message: "The tenant's package does not allow white labelling." },
  'nesting-not-allowed': { status: 403, message: 'A white-labelled tenant cannot manage tenants of its own: one level of nesting only.' },
  'tenant-limit-reached': { status: 403, message: "The tenant manages as many tenants as its package's maxWhiteLabeledTenants allows." },
  'cannot-move-tenant': { status: 400, message: 'managedByTenantId cannot change.' },
  'cannot-change-package': { status: 403, message: 'A tenant cannot change its own packageId.' },
  'cannot-change-payment-frequency': { status: 403, message: 'A tenant cannot change its own paymentFrequency.' },
  'payment-frequency-invalid': { status: 400, message: 'paymentFrequency must be 0 (monthly) or 1 (annually).' },
  'invalid-billing-info': { status: 400, message: 'billingInfoValid true needs billingInfo in the same request.' },
  'unsure': { status: 400, message: 'Deleting a tenant needs the query parameter su=true (or sure=true).' },
  'tenant-has-managed-tenants': { status: 409, message: 'The tenant still manages tenants: delete them first.' },
  'tenant-deleted': { status: 410, message: 'The tenant is being deleted.' },
  'name-too-long': { status: 400, message: 'The package name must be at most 50 characters.' },
  'for-who-text-too-long': { status: 400, message: 'Each forWhoText item must be at most 200 characters.' },
  'feature-tag-lines-too-long': { status: 400, message: 'Each featureTaglines item must be at most 100 characters.' },
  'child-tenant-too-large': { status: 400, message: "Every max of a managed tenant's package must be lower than the parent's." },
  'flex-param-missing': { status: 400, message: 'hasFlexPricing true needs every flex parameter in the same request.' },
  'unexpected-flex-param': { status: 400, message: 'flex parameters are only accepted with hasFlexPricing true.' },
  'package-limit-reached': { status: 403, message: 'A white-labelled tenant has at most five packages.' },
  'own-tenant-package': { status: 403, message: 'A tenant cannot add packages to itself: packages are made by its parent.' },
  'package-in-use': { status: 409, message: "A tenant's packageId points to this package: change the tenant first." },
  // OAuth 2.1 authorization server (docs/oauth.md): answered as RFC 6749 `error` (the code without `oauth-`, `_` for `-`)
  'oauth-invalid-request': { status: 400, message: 'The OAuth request lacks a parameter, repeats one, or has one that is not valid.' },
  'oauth-invalid-client': { status: 401, message: 'Client authentication failed: unknown client, wrong secret, or a confidential client without its secret.' },
  'oauth-invalid-grant': { status: 400, message: 'The authorization code or refresh token is not valid, expired, revoked, or was issued to another client.' },
  'oauth-unsupported-grant-type': { status: 400, message: 'grant_type must be authorization_code or refresh_token.' },
  'oauth-unsupported-response-type': { status: 400, message: 'response_type must be code.' },
  'oauth-invalid-scope': { status: 400, message: 'The scope must be read, write, or both.' },
  'oauth-invalid-target': { status: 400, message: 'The resource is not an absolute URL of this server.' },
  'oauth-invalid-redirect-uri': { status: 400, message: 'A redirect URI is not an https URL, an http URL of a loopback address, or a private-use scheme of a native app.' },
  'oauth-invalid-client-metadata': { status: 400, message: 'The client metadata is not valid.' },
  'api-admin-required': { status: 403, message: 'The signed-in user does not hold the API Admin permission of the tenant.' },
  'csrf-invalid': { status: 403, message: "The form was not sent from this server's page for this sign-in; reload the page and try again." },
  // Comments, votes and pages (shared rules)
  'locked': { status: 423, message: 'The comment is locked; unlock it first.' },
  'voting-disabled': { status: 403, message: 'Voting is disabled for this page or tenant.' },
  'invalid-user': { status: 400, message: 'The user does not belong to this site.' },
  'missing-comment-id': { status: 400, message: 'A comment id is required.' },
  'missing-user-id': { status: 400, message: 'A userId or anonUserId is required.' },
  'rate-limited': { status: 429, message: 'Too many requests; retry later.' },
  // Pages: comments, votes, flags, blocks, pages, hashtags, reactions
  'missing-url-id': { status: 400, message: 'A urlId is required.' },
  'empty-comment': { status: 400, message: 'The comment text is empty.' },
  'comment-too-big': { status: 400, message: 'The comment is longer than this site allows.' },
  'invalid-date': { status: 400, message: 'The date is not valid.' },
  'invalid-name': { status: 400, message: 'The commenter name is not valid.' },
  'invalid-name-is-email': { status: 400, message: 'The commenter name must not be an email address.' },
  'invalid-email': { status: 400, message: 'The email address is not valid.' },
  'invalid-parent-id': { status: 400, message: 'The parent comment is not a comment of this page.' },
  'username-taken': { status: 409, message: 'This name is already used by a commenter with another email address.' },
  'calculated-field': { status: 400, message: 'The field is calculated by the server and cannot be set.' },
  'page-readonly': { status: 403, message: 'The page takes no new comments.' },
  'no-new-root-comments': { status: 403, message: 'The page takes only replies, no new top-level comments.' },
  'login-required': { status: 403, message: 'This site does not allow this anonymously: a userId is required.' },
  'invalid-direction': { status: 400, message: 'The vote direction must be up or down.' },
  'duplicate': { status: 409, message: 'The user already voted this way on this comment.' },
  'invalid-comment-id': { status: 404, message: 'No comment has this id.' },
  'page-exists': { status: 409, message: 'A page with this urlId already exists.' },
  'hashtag-exists': { status: 409, message: 'This hashtag already exists.' },
  'cannot-block-anonymous': { status: 400, message: 'The comment has neither a user id nor an email: its author cannot be blocked.' },
  'blocking-disabled': { status: 403, message: 'Blocking is disabled in the site settings.' },
  'invalid-sso': { status: 401, message: 'The single sign-on payload is not valid.' },
  'sso-required': { status: 403, message: 'This page requires single sign-on.' },
  'page-forbidden': { status: 403, message: 'This user may not view this page.' },
  'too-many-reaction-ids': { status: 409, message: 'The page already has as many different reactions as it may have.' },
  'domain-not-allowed': { status: 403, message: 'This site is not one of the domains configured to host this widget.' },
  'include-private-forbidden': { status: 422, message: 'includeUserInfo=include-private is only available with an API key.' },
  // Polls
  'polls-disabled': { status: 403, message: 'Polls are disabled in the site settings.' },
  'poll-not-found': { status: 404, message: 'The comment has no poll, was deleted, or does not exist.' },
  'poll-invalid': { status: 400, message: 'The poll is not valid.' },
  'replace-votes-required': { status: 409, message: 'Replacing options without ids deletes all votes: send replaceVotes=true.' },
  'poll-privacy-locked': { status: 409, message: 'The poll has votes: its privacy can be narrowed but not widened.' },
  'poll-closed': { status: 409, message: 'The poll is closed.' },
  'poll-login-required': { status: 403, message: 'Voting in this poll requires a logged-in user.' },
  'poll-invalid-option': { status: 400, message: 'The poll has no option with this id.' },
  'poll-anonymous': { status: 403, message: 'The poll is anonymous: individual votes cannot be read.' },
  'poll-votes-restricted': { status: 403, message: 'Only administrators and moderators may read the votes of this poll: use an API credential.' },
  // Email templates and the email outbox
  'invalid-email-template-id': { status: 400, message: 'No email template definition has this emailTemplateId.' },
  'domain-invalid': { status: 400, message: 'The domain matches none of the tenant\'s domain configurations.' },
  'does-not-render': { status: 422, message: 'The template does not render with its test data.' },
  'email-template-limit': { status: 409, message: 'The tenant has as many email templates as it may.' },
  'email-queue-full': { status: 429, message: 'Too many emails of this tenant are waiting to be sent; nothing was changed. Retry later.' },
  'invalid-link': { status: 400, message: 'The link is not valid or has expired.' },
  // Notifications and subscriptions
  'subscription-exists': { status: 409, message: 'This user is already subscribed to this page.' },
  // Webhooks
  'webhook-limit': { status: 409, message: 'The tenant has as many webhook subscriptions as it may (50).' },
  'webhook-address-forbidden': { status: 400, message: 'The webhook url is, or resolves to, a loopback, private or link-local address.' },
  'webhook-host-unresolved': { status: 400, message: 'The host of the webhook url does not resolve.' },
  // Live channels
  'invalid-live-id': { status: 403, message: 'The tenantIdWS, urlIdWS or userIdWS was not issued by this server for this tenant.' },
  'websocket-required': { status: 426, message: 'This endpoint only accepts websocket connections.' },
  'edit-key-invalid': { status: 403, message: 'Only the author may change or delete this comment: sign in, or send the editKey it was created with.' },
  'moderator-required': { status: 403, message: 'Only site administrators and moderators (single sign-on with isAdmin or isModerator) may do this.' },
  'already-voted': { status: 409, message: 'This reader already voted this way on this comment.' },
  // Aggregation
  'aggregation-unknown-resource': { status: 400, message: 'This resource cannot be aggregated; validResourceNames lists those that can.' },
  'aggregation-unknown-field': { status: 400, message: 'The resource has no field of this name.' },
  'aggregation-invalid-operation': { status: 400, message: 'The operation, query, grouping or sort does not fit the field it names.' },
  'parent-tenant-forbidden': { status: 403, message: 'The parentTenantId is neither the calling tenant nor a tenant it manages.' },
  'aggregation-memory-limit': { status: 422, message: 'The aggregation needed more memory than one call may use; narrow the query or the grouping.' },
  'aggregation-queue-timeout': { status: 503, message: "The aggregation waited too long behind the tenant's other aggregations and was not run. Retry later." },
  'aggregation-run-timeout': { status: 504, message: 'The aggregation ran longer than one call may and was stopped; narrow the query.' },
  'aggregation-resource-not-stored': { status: 404, message: 'This resource of the API does not exist on this server (it stores no such data); validResourceNames lists those it can aggregate.' },
  // Imports and exports (docs/import-export.md)
  'import-not-found': { status: 404, message: 'No import job of this tenant has this id.' },
  'import-part-out-of-order': { status: 409, message: 'This part is not the next part of the upload.' },
  'import-upload-closed': { status: 409, message: 'The upload of this import job is complete (or has as many parts as it may): no more parts are taken.' },
  'invalid-import-data': { status: 400, message: 'The part is not base64 data, or is empty.' },
  'export-not-found': { status: 404, message: 'No export job of this tenant has this id, or the export has no such part.' },
  'export-not-ready': { status: 409, message: 'The export is not done yet: poll GET /api/v1/exports/:id until its state is done.' },
  // Questions
  'invalid-question-id': { status: 400, message: 'No question configuration of this tenant has this id.' },
  'question-config-limit': { status: 409, message: 'The tenant has as many question configurations as it may (1000).' },
  // Badges and feed posts (docs/badges.md, docs/feed-posts.md)
  'badge-not-found': { status: 404, message: "No badge of the tenant's catalog has this id." },
  'badge-disabled': { status: 409, message: "The badge is disabled in the catalog." },
  'badge-already-awarded': { status: 409, message: "The user already holds this badge." },
  'badge-user-unknown': { status: 404, message: "The user is neither a user of the tenant nor a commenter on its site." },
  'badge-catalog-full': { status: 409, message: "The tenant's badge catalog is full." },
  'feed-post-not-found': { status: 404, message: "No feed post of this tenant has this id." },
  'feed-post-user-unknown': { status: 400, message: "fromUserId is not a hosted-account or SSO user of the tenant." },
  'feed-post-forbidden': { status: 403, message: "Only the author of a feed post may change or delete it." },
  'feed-post-duplicate': { status: 409, message: "The same author already posted this content." },
  'feed-post-spam': { status: 400, message: "The feed post was judged spam." },
  'feed-post-empty': { status: 400, message: "A feed post needs a title, content, media or links." },
  // Readers' account, presence and uploads (public widget routes)
  'profile-activity-private': { status: 403, message: 'This user keeps their activity private.' },
  'not-an-image': { status: 415, message: 'The upload is not an image of a supported type (JPEG, PNG, WebP, GIF, AVIF).' },
  'image-too-many-pixels': { status: 422, message: 'The image has more pixels than uploads may have.' },
  'invalid-upload': { status: 400, message: 'The upload must be a multipart/form-data body with one file field named file.' },
  // Engine and storage
  'storage-unavailable': { status: 503, message: 'Storage is unavailable; nothing was changed. Retry later.' },
  'storage-conflict': { status: 409, message: 'The write conflicts with stored data; nothing was changed.' },
  'timeout': { status: 503, message: 'The request timed out; its outcome is unknown.' },
  'overloaded': { status: 503, message: 'The server is overloaded; nothing was changed. Retry later.' },
  'shutting-down': { status: 503, message: 'The server is shutting down; nothing was changed.' },
  'cluster-unavailable': { status: 503, message: 'The cluster cannot reach the node that holds this data; nothing was changed. Retry later.' },
  'cluster-starting': { status: 503, message: 'This node has joined the cluster but not every shard has an owner yet.' },
  'internal-error': { status: 500, message: 'Internal error.' },
  'banned': { status: 403, message: 'You are banned from commenting on this site.' },
  'proof-of-work-required': { status: 403, message: 'This site asks anonymous commenters for a proof of work: fetch a challenge, solve it, and send the solution as altcha.' },
  'proof-of-work-invalid': { status: 403, message: 'The proof of work is not valid for this site, or has expired.' },
  'moderation-forbidden': { status: 403, message: 'Only the tenant\'s administrators, comment moderators and accepted moderators may moderate (a login-link session or secure single sign-on with isAdmin, isModerator or isCommentModeratorAdmin).' },
  'proof-of-work-used': { status: 403, message: 'This proof of work was already used (on any node of the server): fetch a new challenge and solve it.' },
} as const satisfies Record<string, { status: number; message: string }>;

/** Every error code the server can answer with. */
export type ErrorCode = keyof typeof ERRORS;

/** Extra APIError fields the specification names (`maxCharacterLength`, `bannedUntil`, ...). */
export type ErrorExtra = Readonly<Record<string, unknown>>;

/** A refusal with a catalogued code. Thrown anywhere; mapped to a response in one place. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly code: ErrorCode;
  readonly extra: ErrorExtra | undefined;

  constructor(code: ErrorCode, reason?: string, extra?: ErrorExtra) {
    // An API error is an answer, not a fault: nobody reads its stack, and capturing one costs
    // more than the rest of refusing a bad request (a flood of them would be expensive).
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(reason ?? ERRORS[code].message);
    Error.stackTraceLimit = limit;
    this.code = code;
    this.extra = extra;
  }

  get status(): number {
    return ERRORS[this.code].status;
  }
}

/** True when `code` is in the catalog. */
export function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(ERRORS, code);
}
