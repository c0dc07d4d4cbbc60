/**
 * How others reach a page's event log (`event-log:<tenantId>:<urlId>`) and the sweeper that
 * drops expired entries of pages gone quiet (`event-log-sweeper:all`).
 *
 * Direction rule: the sweeper asks event-log actors; an event-log actor never messages anyone.
 */
import { defineKind } from '../../engine/actor.js';
import type { EventLogDoc, LogWindow } from './event-log-model.js';

export type EventLogProtocol = {
  /** Entries of this page, made by the live fan-out in publication order. Idempotent per entry id. */
  append: { in: { entries: EventLogDoc[] }; out: null };
  /**
   * The entries whose event timestamp is in [startTime, endTime], oldest first, as a JSON array,
   * at most `maxReadBytes` of them; `more` when the window goes on past them.
   */
  read: { in: { startTime: number; endTime: number }; out: LogWindow };
  /** Applies retention now. */
  trim: { in: null; out: null };
};

export const EventLogKind = defineKind<EventLogProtocol>('event-log');

/** The id of a page's event-log actor (its key without the `event-log:` prefix). */
export function eventLogActorId(tenantId: string, urlId: string): string {
  return `${tenantId}:${urlId}`;
}

export type EventLogSweeperProtocol = {
  /** Finds pages with expired entries and has their actors trim them; answers how many pages. */
  sweep: { in: null; out: { pages: number } };
};

export const EventLogSweeperKind = defineKind<EventLogSweeperProtocol>('event-log-sweeper');

/** The one sweeper's id. */
export const SWEEPER_ID = 'all';
