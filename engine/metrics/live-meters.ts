/**
 * Live-channel families: websocket connections, subscriptions by kind (page, user), events
 * published and delivered, connections closed without a close frame (backpressure), and presence: pages with a
 * reader connected and signed-in users connected (distinct, not per page or per user).
 */
import { CountFamily } from './families.js';
import { PREFIX, register } from './registry.js';

const connections = register(new CountFamily('gauge', `${PREFIX}live_connections`, 'Websocket connections open on /sub.'));
const opened = register(new CountFamily('counter', `${PREFIX}live_connections_opened_total`, 'Websocket connections accepted on /sub.'));
const subscriptions = register(new CountFamily('gauge', `${PREFIX}live_subscriptions`, 'Topic subscriptions of open connections, by kind (page, user).', ['kind']));
const published = register(new CountFamily('counter', `${PREFIX}live_events_published_total`, 'Live events handed to the websocket server, by topic kind (page, user); remote: relayed from another node.', ['kind', 'origin']));
const delivered = register(new CountFamily('counter', `${PREFIX}live_event_deliveries_total`, 'Live event copies sent to subscribed sockets (one per subscriber of the topic).'));
const backpressure = register(
  new CountFamily(
    'counter',
    `${PREFIX}live_abnormal_closes_total`,
    'Connections closed without a close frame (1006): subscribers dropped because their send buffer passed the backpressure limit (they reconnect and catch up), and clients that vanished.',
  ),
);
const presence = register(new CountFamily('gauge', `${PREFIX}live_presence`, 'Distinct pages with a reader connected (page) and distinct signed-in users connected (user).', ['kind']));

const CONNECTIONS = connections.child();
const OPENED = opened.child();
const SUBS = { page: subscriptions.child('page'), user: subscriptions.child('user') };
const PUBLISHED = {
  page: { local: published.child('page', 'local'), remote: published.child('page', 'remote') },
  user: { local: published.child('user', 'local'), remote: published.child('user', 'remote') },
};
const DELIVERED = delivered.child();
const BACKPRESSURE = backpressure.child();

/** Open connections by page topic and by user topic: the presence counts are their sizes. */
const pages = new Map<string, number>();
const users = new Map<string, number>();
const PRESENCE = { page: presence.child('page'), user: presence.child('user') };
presence.collect = () => {
  PRESENCE.page.n = pages.size;
  PRESENCE.user.n = users.size;
};

function add(map: Map<string, number>, key: string, by: 1 | -1): void {
  const n = (map.get(key) ?? 0) + by;
  if (n <= 0) map.delete(key);
  else map.set(key, n);
}

/** A connection opened, listening to its page topic and, when signed in, its user's. */
export function liveOpened(pageTopic: string, userTopic: string | undefined): void {
  CONNECTIONS.n++;
  OPENED.n++;
  SUBS.page.n++;
  add(pages, pageTopic, 1);
  if (userTopic !== undefined) {
    SUBS.user.n++;
    add(users, userTopic, 1);
  }
}

/** A connection opened with `liveOpened` closed. */
export function liveClosed(pageTopic: string, userTopic: string | undefined): void {
  CONNECTIONS.n--;
  SUBS.page.n--;
  add(pages, pageTopic, -1);
  if (userTopic !== undefined) {
    SUBS.user.n--;
    add(users, userTopic, -1);
  }
}

/** An event went to a topic with `subscribers` sockets. */
export function livePublished(kind: 'page' | 'user', remote: boolean, subscribers: number): void {
  PUBLISHED[kind][remote ? 'remote' : 'local'].n++;
  DELIVERED.n += subscribers;
}

/** A connection closed without a close frame: dropped for backpressure, or the client vanished. */
export function liveAbnormalClose(): void {
  BACKPRESSURE.n++;
}
