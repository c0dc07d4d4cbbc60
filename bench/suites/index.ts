/** The registry of benchmark suites. */
import type { Suite } from '../lib/suite.js';
import { aggregateScan } from './aggregate-scan.js';
import { cluster } from './cluster.js';
import { commentsGet } from './comments-get.js';
import { email } from './email.js';
import { engineHotActor } from './engine-hot-actor.js';
import { engineVotes } from './engine-votes.js';
import { fanout } from './fanout.js';
import { httpBearer } from './http-bearer.js';
import { hotPage } from './hot-page.js';
import { httpMe } from './http-me.js';
import { pollVotes } from './poll-votes.js';
import { notifyFanout } from './notify-fanout.js';
import { userErase } from './user-erase.js';
import { votesPost } from './votes-post.js';
import { webhooks } from './webhooks.js';
import { importDisqus } from './import-disqus.js';
import { questionAggregate } from './question-aggregate.js';
import { feedList } from './feed-list.js';
import { metricsOverhead } from './metrics-overhead.js';
import { publicCommentsGet } from './public-comments-get.js';
import { publicVotes } from './public-votes.js';
import { publicFanout } from './public-fanout.js';
import { widgetSuite } from './widget.js';
import { publicCache } from './public-cache.js';
import { moderationExport } from './moderation-export.js';

/** Every benchmark suite, in the order `all` runs them. Add new suites here. */
export const SUITES: readonly Suite[] = [engineHotActor, engineVotes, httpMe, httpBearer, fanout, commentsGet, votesPost, pollVotes, cluster, aggregateScan, email, webhooks, userErase, notifyFanout, questionAggregate, importDisqus, feedList, metricsOverhead, publicCommentsGet, publicVotes, publicFanout, hotPage, widgetSuite, publicCache, moderationExport];
