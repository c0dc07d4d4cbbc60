/**
 * The aggregation pool's queue and run times, read from the events it emits (`observe`): a
 * tenant's calls run one at a time, in order, so each `started` belongs to its oldest waiting
 * call and each `finished` to its running one.
 */
import { AGGREGATION_POOL } from '../engine/metrics/work-meters.js';
import type { Aggregator } from './aggregator.js';

/** Feeds the aggregation metrics from `aggregator`; returns the removal. */
export function meterAggregations(aggregator: Aggregator): () => void {
  const waiting = new Map<string, number[]>();
  const running = new Map<string, number>();
  return aggregator.observe((event) => {
    const { tenantId, at } = event;
    if (event.type === 'queued') {
      const list = waiting.get(tenantId);
      if (list === undefined) waiting.set(tenantId, [at]);
      else list.push(at);
      return;
    }
    const list = waiting.get(tenantId);
    if (event.type === 'started') {
      const queuedAt = list?.shift();
      if (list?.length === 0) waiting.delete(tenantId);
      AGGREGATION_POOL.queued(queuedAt === undefined ? 0 : (at - queuedAt) / 1000);
      running.set(tenantId, at);
      return;
    }
    if (event.outcome === 'aggregation-queue-timeout') {
      const queuedAt = list?.shift();
      if (list?.length === 0) waiting.delete(tenantId);
      if (queuedAt !== undefined) AGGREGATION_POOL.queued((at - queuedAt) / 1000);
      return;
    }
    const startedAt = running.get(tenantId);
    running.delete(tenantId);
    if (startedAt !== undefined) AGGREGATION_POOL.ran((at - startedAt) / 1000, event.outcome ?? 'ok');
  });
}
