/**
 * The wire form of a live event: the text of one websocket message, and the `data` string of
 * an event-log entry. Made once per event, however many subscribers receive it.
 */
import type { LiveEvent } from './live-events.js';

/** The text a client sends to keep its connection alive, and the server's answer. */
export const LIVE_PING = 'ping';
export const LIVE_PONG = 'pong';

const PERCENT = /%/g;

/**
 * `JSON.stringify(event)` with every `%` written as the JSON escape `\u0025`.
 *
 * The official browser widgets parse each message as `JSON.parse(decodeURIComponent(text))`,
 * while the mobile and server clients parse the text directly. A `%` can only occur inside a
 * JSON string, where `\u0025` means the same character, so the escaped text contains no `%`:
 * `decodeURIComponent` leaves it unchanged and both kinds of client read the same event. A
 * comment saying "50% off" would otherwise make the widgets throw.
 */
export function encodeLiveEvent(event: LiveEvent): string {
  const json = JSON.stringify(event);
  return json.includes('%') ? json.replace(PERCENT, '\\u0025') : json;
}
