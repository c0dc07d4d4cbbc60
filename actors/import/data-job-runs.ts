/**
 * Import and export runs under way in this process, per actor system: a job's actor may be
 * passivated while its run goes on in the background, and must not start it twice; tests
 * wait for none to be under way before they look at what storage holds.
 */
import type { ActorSystem } from '../../engine/actor-system.js';

const runs = new WeakMap<ActorSystem, Set<string>>();

/** Marks the run of `key` begun; false when it already is (then nothing is to be done). */
export function beginRun(system: ActorSystem, key: string): boolean {
  let set = runs.get(system);
  if (set === undefined) runs.set(system, (set = new Set()));
  if (set.has(key)) return false;
  set.add(key);
  return true;
}

/** Marks the run of `key` ended. */
export function endRun(system: ActorSystem, key: string): void {
  runs.get(system)?.delete(key);
}

/** Runs under way in this process. */
export function runsUnderWay(system: ActorSystem): number {
  return runs.get(system)?.size ?? 0;
}
