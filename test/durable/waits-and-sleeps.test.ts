import { describe, expect, it } from 'vitest';
import { createRunner, type StatecrewEvent, type Store } from '../../src/index.js';
import { createManualClock } from '../../src/testing.js';
import { coolOffFlow, deliveryFlow } from '../fixtures/durable/definitions.js';
import { Child, countRuns, type Reply, runLogs, storeAndTwoChildren } from './processes.js';
import { type ProvidedStore, services, storeKinds } from './store-specs.js';

const freshLog = runLogs('statecrew-waits-');
if (!services) console.log('PostgreSQL and Redis cases skipped: STATECREW_NO_SERVICES=1');

for (const [kind, provide] of storeKinds()) {
  describe(`waits and sleeps across processes on ${kind}`, () => {
    let provided: ProvidedStore;
    let store: Store;
    let second: Child;
    let third: Child;
    const log = freshLog();
    storeAndTwoChildren(provide, log, (made) => {
      ({ provided, store, second, third } = made);
    });

    it('goes on with a waiting run when a fresh process, with its own definition, signals it', async () => {
      const id = `signal-${kind}`;
      const paused = await deliveryFlow(store, log).kickoff({ inputs: { id } });
      expect(paused.status).toBe('paused');
      expect(paused.pending).toMatchObject({ step: 'delivery', kind: 'event', event: 'delivery.confirmed' });
      expect(paused.pending?.timeoutAt).toBeGreaterThan(Date.now());
      const wrong = await second.send({ op: 'signal', id, event: 'delivery.refused' });
      expect(wrong).toMatchObject({ ok: false, code: 'no_waiter' });
      expect((await deliveryFlow(store, log).getRun(id))?.status).toBe('paused');
      const reply = await second.send({
        op: 'signal',
        id,
        event: 'delivery.confirmed',
        payload: { by: 'Ada' },
      });
      expect(reply).toMatchObject({ ok: true, status: 'completed', trail: ['ship', 'delivery', 'close'] });
      const stored = await deliveryFlow(store, log).resume(id);
      expect(stored.outputs.close).toEqual({ closed: { by: 'Ada' } });
      expect(countRuns(log).get(`close ${id}`)).toBe(1);
      const late = await third.send({ op: 'signal', id, event: 'delivery.confirmed' });
      expect(late).toMatchObject({ ok: false, code: 'no_waiter' });
    }, 60_000);

    it('lets exactly one of two signals sent at once from two processes go on, 10 times in a row', async () => {
      for (let trial = 0; trial < 10; trial += 1) {
        const id = `race-${kind}-${trial}`;
        const paused = await deliveryFlow(store, log).kickoff({ inputs: { id } });
        expect(paused.status).toBe('paused');
        const replies = await Promise.all([
          second.send({ op: 'signal', id, event: 'delivery.confirmed', payload: 'second' }),
          third.send({ op: 'signal', id, event: 'delivery.confirmed', payload: 'third' }),
        ]);
        expect(
          replies.filter((r) => r.ok),
          JSON.stringify(replies),
        ).toHaveLength(1);
        const refused = replies.find((r) => !r.ok) as Reply;
        expect(['no_waiter', 'run_locked']).toContain(refused.code);
        expect(countRuns(log).get(`close ${id}`)).toBe(1);
      }
    }, 120_000);

    it('goes on with a sleep whose process was killed at its stored wake time, and not before', async () => {
      const id = `sleep-${kind}`;
      const first = await Child.start(provided.spec, log);
      first.send({ op: 'sleep', id }).catch(() => {}); // it is killed
      const sleeping = await first.when((line) => line.event === 'sleeping');
      await first.kill();
      const wakeAt = sleeping.wakeAt as number;
      // After the dead owner's lease (1 s) ran out, an hour before the wake time.
      const clock = createManualClock(Date.now() + 5_000);
      const runner = createRunner({ store, flows: [coolOffFlow(store, log)], clock });
      const events: StatecrewEvent[] = [];
      runner.events$.subscribe((event) => events.push(event));
      const pass = runner.recover();
      const slept = () => events.find((e) => e.type === 'flow.sleeping');
      while (slept() === undefined) await clock.whenTimer().then(() => new Promise((r) => setImmediate(r)));
      expect(slept()).toMatchObject({ step: 'cool_off', wakeAt });
      const woke = () =>
        events.some((e) => e.type === 'flow.step' && e.name === 'cool_off' && e.status === 'completed');
      clock.advance(wakeAt - clock.now() - 1);
      await new Promise((r) => setImmediate(r));
      expect(woke()).toBe(false);
      expect(countRuns(log).get(`close ${id}`)).toBeUndefined();
      clock.advance(1);
      await new Promise((r) => setImmediate(r));
      expect(woke()).toBe(true);
      const report = await pass;
      await runner.close();
      expect(report.resumed).toEqual([id]);
      expect(countRuns(log).get(`close ${id}`)).toBe(1);
      const out = await coolOffFlow(store, log).resume(id);
      expect(out).toMatchObject({ status: 'completed', trail: ['order', 'cool_off', 'close'] });
    }, 60_000);
  });
}
