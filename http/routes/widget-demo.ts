import { CustomReply, route, type Schema } from '../route.js';
import { TENANT_ID } from '../public/comment-access.js';

const QUERY: Schema = { type: 'object', properties: { tenantId: TENANT_ID }, required: ['tenantId'] };

/**
 * `GET /demo?tenantId=`: a page with the widget on it, for a newcomer's first look (`npm start`
 * prints its address for the demo tenant). It is served from this server's host, a local site
 * that a tenant with no domain configured admits; open it in two tabs to watch one update live.
 */
export const widgetDemoRoutes = [
  route<Record<string, unknown>, undefined>({
    method: 'GET',
    path: '/demo',
    access: 'open',
    answers: 'page',
    query: QUERY,
    handle: ({ query }) => {
      const config = JSON.stringify({ tenantId: query['tenantId'], urlId: 'demo' }).replace(/</g, '\\u003c');
      const page = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Comments demo</title><style>body{font-family:system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem;line-height:1.5}</style>
<script src="/js/embed-v2.min.js"></script></head>
<body><main><h1>Comments demo</h1>
<p>This page embeds the comment widget with one script tag and one element. Post a comment, then open this page in a second tab: new comments, votes and edits appear there live.</p>
<div id="comments"></div></main>
<script>FastCommentsUI(document.getElementById('comments'), ${config});</script></body></html>`;
      return new CustomReply(200, page, 'text/html; charset=utf-8', [
        ['content-security-policy', "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src * data:; connect-src 'self' ws: wss:; frame-ancestors 'none'"],
        ['cache-control', 'no-store'],
        ['x-content-type-options', 'nosniff'],
      ]);
    },
  }),
];
