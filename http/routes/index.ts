import { liveRoutes } from '../live/routes.js';
import { aggregateRoutes } from './aggregate.js';
import type { AnyRoute } from '../route.js';
import { commentModerationRoutes } from './comment-moderation.js';
import { commentRoutes } from './comments.js';
import { domainConfigRoutes } from './domain-configs.js';
import { emailLinkRoutes } from './email-links.js';
import { emailTemplateRoutes } from './email-templates.js';
import { hashTagRoutes } from './hash-tags.js';
import { healthRoutes } from './health.js';
import { meRoutes } from './me.js';
import { notificationRoutes } from './notifications.js';
import { publicPollVoteRoutes } from './public-poll-votes.js';
import { pageReactRoutes } from './page-reacts.js';
import { pageRoutes } from './pages.js';
import { pollVoteRoutes } from './poll-votes.js';
import { pollRoutes } from './polls.js';
import { subscriptionRoutes } from './subscriptions.js';
import { tenantDailyUsageRoutes } from './tenant-daily-usage.js';
import { userRoutes } from './users.js';
import { voteRoutes } from './votes.js';
import { widgetConfigRoutes } from './widget-config.js';
import { pendingWebhookEventRoutes } from './pending-webhook-events.js';
import { webhookRoutes } from './webhooks.js';
import { identityRoutes } from './identity.js';
import { oauthRoutes } from './oauth.js';
import { oauthConsentRoutes } from './oauth-consent.js';
import { dataJobRoutes } from './data-jobs.js';
import { questionConfigRoutes } from './question-configs.js';
import { questionResultRoutes } from './question-results.js';
import { questionAggregateRoutes } from './question-aggregates.js';
import { badgeRoutes } from './badges.js';
import { feedPostRoutes } from './feed-posts.js';
import { publicFeedPostRoutes } from './feed-posts-public.js';
import { publicCommentRoutes } from './public-comments.js';
import { publicCommentActionRoutes } from './public-comment-actions.js';
import { publicFlagBlockRoutes } from './public-flags-blocks.js';
import { publicAccountRoutes } from './public-account.js';
import { publicActivityRoutes } from './public-activity.js';
import { publicPresenceRoutes } from './public-presence.js';
import { publicPageRoutes } from './public-pages.js';
import { translationRoutes } from './translations.js';
import { uploadImageRoutes } from './upload-image.js';
import { widgetAssetRoutes } from './widget-assets.js';
import { ssrCommentRoutes } from './ssr-comments.js';
import { widgetDemoRoutes } from './widget-demo.js';
import { moderateCommentRoutes } from './moderate-comments.js';
import { moderateBanRoutes } from './moderate-bans.js';
import { moderateMoreRoutes } from './moderate-more.js';
import { moderateSpamSettingsRoutes } from './moderate-spam-settings.js';
import { moderateExportRoutes } from './moderate-export.js';
import { moderateSearchRoutes } from './moderate-search.js';
import { moderateBadgeRoutes } from './moderate-badges.js';
import { moderateVoteRoutes } from './moderate-votes.js';
import { moderationPageRoutes } from './moderation-page.js';

/** Every HTTP route of the server. */
export const ROUTES: readonly AnyRoute[] = [
  ...healthRoutes,
  ...meRoutes,
  ...tenantDailyUsageRoutes,
  ...domainConfigRoutes,
  ...widgetConfigRoutes,
  ...liveRoutes,
  ...pollRoutes,
  ...pollVoteRoutes,
  ...commentRoutes,
  ...commentModerationRoutes,
  ...voteRoutes,
  ...pageRoutes,
  ...hashTagRoutes,
  ...pageReactRoutes,
  ...userRoutes,
  ...aggregateRoutes,
  ...emailTemplateRoutes,
  ...emailLinkRoutes,
  ...notificationRoutes,
  ...subscriptionRoutes,
  ...webhookRoutes,
  ...pendingWebhookEventRoutes,
  ...identityRoutes,
  ...oauthRoutes,
  ...oauthConsentRoutes,
  ...dataJobRoutes,
  ...questionConfigRoutes,
  ...questionResultRoutes,
  ...questionAggregateRoutes,
  ...badgeRoutes,
  ...feedPostRoutes,
  ...publicFeedPostRoutes,
  ...publicCommentRoutes,
  ...publicCommentActionRoutes,
  ...publicFlagBlockRoutes,
  ...publicAccountRoutes,
  ...publicActivityRoutes,
  ...publicPresenceRoutes,
  ...publicPageRoutes,
  ...translationRoutes,
  ...uploadImageRoutes,
  ...widgetAssetRoutes,
  ...ssrCommentRoutes,
  ...widgetDemoRoutes,
  ...moderateCommentRoutes,
  ...moderateBanRoutes,
  ...moderateMoreRoutes,
  ...moderateSpamSettingsRoutes,
  ...moderateExportRoutes,
  ...moderateSearchRoutes,
  ...moderateBadgeRoutes,
  ...moderateVoteRoutes,
  ...publicPollVoteRoutes,
  ...moderationPageRoutes,
];
