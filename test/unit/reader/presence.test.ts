import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { EventBus } from '../../../engine/event-bus.js';
import { anonPresenceId, Presence } from '../../../http/live/presence.js';

/** Two nodes' presence sharing what they publish on the tenant subject, as the cluster relay carries it. */
function cluster(): { a: Presence; b: Presence; frames: { node: string; event: Record<string, unknown> }[]; flush: () => void } {
  const busA = new EventBus();
  const busB = new EventBus();
  const a = new Presence(busA, true);
  const b = new Presence(busB, true);
  const frames: { node: string; event: Record<string, unknown> }[] = [];
  const queued: (() => void)[] = [];
  for (const [name, bus, other] of [['a', busA, b], ['b', busB, a]] as const) {
    bus.listen((topic, event, remote) => {
      if (topic.startsWith('page:')) frames.push({ node: name, event: event as Record<string, unknown> });
      // Carried to the other node later, as NATS would.
      else if (!remote && topic.startsWith('tenant:')) queued.push(() => other.onBusEvent(topic, event, true));
    });
  }
  return { a, b, frames, flush: () => queued.splice(0).forEach((deliver) => deliver()) };
}

describe('presence', () => {
  const stops: Presence[] = [];
  after(() => stops.forEach((p) => p.stop()));

  test('one reader on both nodes is one reader; it leaves only when its last socket anywhere closes', () => {
    const { a, b, flush } = cluster();
    stops.push(a, b);
    a.join('t', '/p', 'u1');
    b.join('t', '/p', 'u1');
    b.join('t', '/p', anonPresenceId('session'));
    flush();
    for (const node of [a, b]) assert.deepEqual(node.readers('t', '/p'), { named: ['u1'], anonCount: 1, total: 2 });
    a.leave('t', '/p', 'u1');
    flush();
    assert.equal(a.isOn('t', '/p', 'u1'), true, 'still on node b');
    b.leave('t', '/p', 'u1');
    flush();
    assert.equal(a.isOn('t', '/p', 'u1'), false);
    assert.equal(b.isOn('t', '/p', 'u1'), false);
  });

  test('anonymous ids are digests: the same session gives the same id and never shows the session', () => {
    assert.equal(anonPresenceId('abc'), anonPresenceId('abc'));
    assert.notEqual(anonPresenceId('abc'), anonPresenceId('abd'));
    assert.ok(!anonPresenceId('abc').includes('abc'));
    assert.notEqual(anonPresenceId(undefined), anonPresenceId(undefined));
  });
});
