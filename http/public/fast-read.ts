/**
 * The fast lane of the anonymous page view (`GET /comments/{tenantId}` without identity): the
 * answer the page actor keeps, found and sent from inside the uWebSockets.js callback, without
 * copying the request or running the pipeline. It answers only what the pipeline answered
 * before for the same tenant and query string (so the query was validated then), and only when
 * the site check passes and the client's request budget has a token; anything else (the first
 * read, a refusal, a reader with an identity, a page not yet kept) goes the normal way, which
 * answers it with the same rules.
 */
import { PAGE_VIEWS, PageKind, pageActorId } from '../../actors/page/protocol.js';
import type { PublicAnswer } from '../../actors/page/public-answers.js';
import { TENANT_VIEWS, TenantKind } from '../../actors/tenant/tenant-actor.js';
import type { Settings } from '../../actors/tenant/widget-config.js';
import { ANON_COOKIE } from '../anon-session.js';
import { limitKey } from '../client-address.js';
import type { AppServices } from '../services.js';
import { assertSiteAllowed, requestSite } from '../site-check.js';
import type { FastLane, Reply } from '../uws/index.js';
import { countPageLoad } from './page-loads.js';
import { knownRead } from './read-query.js';

const PATH = /^\/comments\/([A-Za-z0-9_-]{1,64})$/;
const JSON_TYPE = 'application/json; charset=utf-8';
/** Anonymous reads remembered per server (tenant and query string → urlId). */
const LANE_READS_MAX = 10_000;

const laneReads = new WeakMap<AppServices, Map<string, string>>();

/** Remembers that the pipeline answered this anonymous read (called by the route after validating it). */
export function rememberLaneRead(app: AppServices, tenantId: string, rawQuery: string, urlId: string): void {
  let reads = laneReads.get(app);
  if (reads === undefined) laneReads.set(app, (reads = new Map()));
  const key = `${tenantId}?${rawQuery}`;
  if (reads.has(key)) return;
  if (reads.size >= LANE_READS_MAX) reads.clear();
  reads.set(key, urlId);
}

/** The page-view lane of a server (register with `HttpServer.fastGet('/comments/:tenantId', ...)`). */
export function publicReadLane(app: AppServices): FastLane {
  return (req): Reply | undefined => {
    const cookie = req.header('cookie');
    if (cookie !== '' && cookie.includes(`${ANON_COOKIE}=`)) return undefined;
    const tenantId = PATH.exec(req.path)?.[1];
    if (tenantId === undefined) return undefined;
    const urlId = laneReads.get(app)?.get(`${tenantId}?${req.query}`);
    if (urlId === undefined) return undefined;
    const settings = app.system.peek(TenantKind, tenantId, TENANT_VIEWS.settings, urlId) as Settings | undefined;
    if (settings === undefined || settings.requireSSO) return undefined;
    const read = knownRead(settings, req.query);
    if (read === undefined) return undefined;
    const answer = app.system.peek(PageKind, pageActorId(tenantId, urlId), PAGE_VIEWS.publicAnswers, read.key) as PublicAnswer | undefined;
    if (answer === undefined) return undefined;
    const origin = req.header('origin');
    const site = requestSite({ origin, referer: req.header('referer') });
    try {
      assertSiteAllowed(settings.allowedDomains, site, app.config.openSitesWithoutDomains);
    } catch {
      return undefined;
    }
    if (app.limits.requests.take(limitKey(req.ip)) > 0) return undefined;
    countPageLoad(app, tenantId);
    const { body, encoding } = answer.choose(req.header('accept-encoding'));
    const headers: [string, string][] = [['vary', 'accept-encoding']];
    if (encoding !== null) headers.push(['content-encoding', encoding]);
    if (origin !== '' && origin !== 'null') headers.push(['access-control-allow-origin', origin], ['access-control-allow-credentials', 'true'], ['vary', 'origin']);
    return { status: 200, body, contentType: JSON_TYPE, headers };
  };
}
