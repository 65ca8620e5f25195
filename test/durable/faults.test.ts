import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  Agent,
  Crew,
  createFlow,
  type RunCommit,
  type StatecrewEvent,
  type Store,
  StoreUnavailableError,
  Task,
} from '../../src/index.js';
import { createManualClock } from '../../src/testing.js';
import { chainCrew, chainFlow, deliveryFlow, refundCrew } from '../fixtures/durable/definitions.js';
import { openStore } from '../fixtures/durable/stores.js';
import { wrapStore } from '../store-helpers.js';
import { countRuns, runLogs } from './processes.js';
import { type ProvidedStore, storeKinds } from './store-specs.js';

const freshLog = runLogs('statecrew-faults-');

/** `store`, failing (store_unavailable) the commits that write a record with key `key`, while `broken.on`. */
function failingAt(store: Store, key: string, broken = { on: true }): Store {
  return wrapStore(store, {
    commit: (id: string, commit: RunCommit) =>
      broken.on && commit.writes.some((w) => w.key === key)
        ? Promise.reject(diskFull())
        : store.commit(id, commit),
  });
}

/** The error of a store whose disk is full. */
const diskFull = () => new StoreUnavailableError('FailingStore', 'its disk', { code: 'SQLITE_FULL' });

/** The call id of the refund crew's call waiting for approval. */
const APPROVAL_CALL = 'refund.1.1.0';

for (const [kind, provide] of storeKinds()) {
  describe(`faults on ${kind}`, () => {
    let provided: ProvidedStore;
    let store: Store;

    beforeEach(async () => {
      provided = provide();
      store = await openStore(provided.spec);
    });

    afterEach(async () => {
      await store.close();
      await provided.cleanup();
    });

    it('stops a flow at a failed write: nothing after it starts, and resume runs only the step in flight again', async () => {
      const log = freshLog();
      const failing = failingAt(store, 'step:s3');
      const error = await chainFlow(failing, log)
        .kickoff({ inputs: { id: 'f1', topic: 'AI' } })
        .catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'store_unavailable', details: { cause: 'SQLITE_FULL' } });
      expect([...countRuns(log).keys()]).toEqual(['s1 AI', 's2 AI', 's3 AI']);
      const out = await chainFlow(store, log).resume('f1');
      expect(out.status).toBe('completed');
      expect(out.trail).toEqual(['s1', 's2', 's3', 's4', 's5', 's6']);
      const runs = countRuns(log);
      expect(['s1', 's2', 's3', 's4', 's5', 's6'].map((s) => runs.get(`${s} AI`))).toEqual([
        1, 1, 2, 1, 1, 1,
      ]);
    });

    it('stops a crew at a failed write: nothing after it starts, and resume runs only the task in flight again', async () => {
      const log = freshLog();
      const error = await chainCrew(failingAt(store, 't3'), log)
        .kickoff({ executionId: 'c1', inputs: { topic: 'AI' } })
        .catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'store_unavailable' });
      expect([...countRuns(log).keys()]).toEqual(['t1 on AI', 't2 on AI', 't3 on AI']);
      const out = await chainCrew(store, log).resume('c1');
      expect(out.status).toBe('completed');
      expect(out.metadata.restored).toEqual(['t1', 't2']);
      const runs = countRuns(log);
      expect(['t1', 't2', 't3', 't4', 't5', 't6'].map((t) => runs.get(`${t} on AI`))).toEqual([
        1, 1, 2, 1, 1, 1,
      ]);
    });

    it('stops a sleep whose wake time cannot be written: it never sleeps unstored, and resume sleeps to the time it then stores', async () => {
      const clock = createManualClock();
      const broken = { on: false };
      const ran: string[] = [];
      const nap = (on: Store) =>
        createFlow({ name: 'nap', initialState: {}, store: on, clock })
          .start('order', () => {
            ran.push('order');
            broken.on = true; // the next header written, the sleep's wake time, fails
            return 'o-1';
          })
          .sleep('cool_off', 'order', { ms: 60_000 })
          .listen('close', 'cool_off', () => {
            ran.push('close');
            return 'closed';
          });
      const error = await nap(failingAt(store, 'run', broken))
        .kickoff({ inputs: { id: 'n1' } })
        .catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'store_unavailable' });
      expect(ran).toEqual(['order']);
      broken.on = false;
      const resumed: StatecrewEvent[] = [];
      const result = nap(store).resume('n1', undefined, {
        onRun: (run) => run.events$.subscribe((e) => resumed.push(e)),
      });
      while (!resumed.some((e) => e.type === 'flow.sleeping')) await new Promise((r) => setImmediate(r));
      expect(resumed.find((e) => e.type === 'flow.sleeping')).toMatchObject({ wakeAt: clock.now() + 60_000 });
      clock.advance(60_000);
      expect((await result).trail).toEqual(['order', 'cool_off', 'close']);
      expect(ran).toEqual(['order', 'close']);
    });

    it('refuses a signal whose run cannot be written, and takes the same signal once the store is back', async () => {
      const log = freshLog();
      const paused = await deliveryFlow(store, log).kickoff({ inputs: { id: 'w1' } });
      expect(paused.status).toBe('paused');
      const broken = { on: true };
      const error = await deliveryFlow(failingAt(store, 'run', broken), log)
        .signal('w1', 'delivery.confirmed', 'Ada')
        .catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'store_unavailable' });
      expect(countRuns(log).get('close w1')).toBeUndefined();
      broken.on = false;
      const out = await deliveryFlow(store, log).signal('w1', 'delivery.confirmed', 'Ada');
      expect(out.trail).toEqual(['ship', 'delivery', 'close']);
      expect(countRuns(log).get('close w1')).toBe(1);
    });

    it('stops a crew whose pause for approval cannot be written; resumed, it pauses again and the tool never ran', async () => {
      const log = freshLog();
      const inputs = { order: 'a1', amount: 70 };
      const error = await refundCrew(failingAt(store, 'refund'), log)
        .kickoff({ executionId: 'a1', inputs })
        .catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'store_unavailable' });
      const again = await refundCrew(store, log).resume('a1');
      expect(again.status).toBe('paused');
      expect(again.pending).toMatchObject([{ kind: 'approval', callId: APPROVAL_CALL, tool: 'refund' }]);
      expect(countRuns(log).get('refund a1 70')).toBeUndefined();
      const out = await refundCrew(store, log).resume('a1', {
        approvals: { [APPROVAL_CALL]: { approve: true } },
      });
      expect(out.status).toBe('completed');
      expect(countRuns(log).get('refund a1 70')).toBe(1);
    });

    it('refuses an approval whose claim or kept answers cannot be written, the run left paused; the same approval goes on once the store is back', async () => {
      const log = freshLog();
      await refundCrew(store, log).kickoff({ executionId: 'a2', inputs: { order: 'a2', amount: 70 } });
      const approvals = { [APPROVAL_CALL]: { approve: true as const } };
      const claimFails = wrapStore(store, { claimRun: () => Promise.reject(diskFull()) });
      for (const broken of [claimFails, failingAt(store, 'answers')]) {
        const error = await refundCrew(broken, log)
          .resume('a2', { approvals })
          .catch((e: unknown) => e);
        expect(error).toMatchObject({ code: 'store_unavailable' });
        expect(await store.readRun('a2')).toMatchObject({ status: 'paused', lease: null });
      }
      expect(countRuns(log).get('refund a2 70')).toBeUndefined();
      const out = await refundCrew(store, log).resume('a2', { approvals });
      expect(out).toMatchObject({ status: 'completed', raw: 'done: refunded 70' });
      expect(countRuns(log).get('refund a2 70')).toBe(1);
    });

    it('stops a run whose lease was taken at its next write (lease_lost), starting nothing more', async () => {
      const ran: string[] = [];
      const steal = async (id: string) => {
        const head = await store.readRun(id);
        const thief = {
          owner: 'thief:1',
          token: 'stolen',
          expiresAt: Date.now() + 60_000,
          host: 'x',
          pid: 1,
          thread: 0,
        };
        // A thief that found the owner gone, as a claim on its host would: it names the lease it replaces.
        const claim = { status: 'running' as const, lease: thief, replaces: head?.lease?.token };
        expect(await store.claimRun(id, head?.version ?? -1, claim)).toBe(true);
      };
      const flow = createFlow({ name: 'stolen', initialState: {}, store })
        .start('one', () => ran.push('one'))
        .listen('two', 'one', async ({ state }) => {
          ran.push('two');
          await steal(state.id);
        })
        .listen('three', 'two', () => ran.push('three'));
      await expect(flow.kickoff({ inputs: { id: 'l1' } })).rejects.toMatchObject({ code: 'lease_lost' });
      expect(ran).toEqual(['one', 'two']);
      expect((await store.readRun('l1'))?.lease?.owner).toBe('thief:1');
      await expect(flow.resume('l1')).rejects.toMatchObject({ code: 'run_locked' });
    });

    it('stops a run whose heartbeat finds the lease taken, even in the middle of a step', async () => {
      const clock = createManualClock();
      let started: () => void = () => {};
      const inTwo = new Promise<void>((resolve) => {
        started = resolve;
      });
      const ran: string[] = [];
      const flow = createFlow({ name: 'beat', initialState: {}, store, leaseMs: 30 })
        .start('one', () => ran.push('one'))
        .listen('two', 'one', ({ signal }) => {
          ran.push('two');
          started();
          return new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
        })
        .listen('three', 'two', () => ran.push('three'));
      const result = flow.kickoff({ inputs: { id: 'h1' }, clock });
      await inTwo;
      const head = await store.readRun('h1');
      const thief = {
        owner: 'thief:2',
        token: 'stolen',
        expiresAt: Date.now() + 60_000,
        host: 'x',
        pid: 1,
        thread: 0,
      };
      const claim = { status: 'running' as const, lease: thief, replaces: head?.lease?.token };
      expect(await store.claimRun('h1', head?.version ?? -1, claim)).toBe(true);
      await clock.whenTimer();
      clock.advance(10); // the heartbeat is due every leaseMs / 3
      await expect(result).rejects.toMatchObject({ code: 'lease_lost' });
      expect(ran).toEqual(['one', 'two']);
    });

    it('keeps a value no store can carry out of the store: the step fails with invalid_state naming its path', async () => {
      const flow = createFlow({
        name: 'payments',
        initialState: { customer: { name: 'Ada' } as object },
        store,
      })
        .start('load', ({ state }) => {
          state.customer = { name: 'Ada', tier: 'gold' };
          return 'loaded';
        })
        .listen('charge', 'load', ({ state }) => {
          state.customer = { name: 'Ada', onPay: () => 'paid' };
          return 'charged';
        })
        .listen('ship', 'charge', () => 'shipped');
      const out = await flow.kickoff({ inputs: { id: 'p1' } });
      expect(out.status).toBe('failed');
      expect(out.failures.charge).toMatchObject({
        code: 'invalid_state',
        details: { path: 'state.customer.onPay' },
      });
      expect(out.errors.charge).toContain('state.customer.onPay');
      expect(out.trail).toEqual(['load']);
      expect(await store.readRun('p1')).toMatchObject({ status: 'failed', lease: null });
      const stored = await flow.getRun('p1');
      expect(stored).toMatchObject({ status: 'failed', state: { customer: { name: 'Ada', tier: 'gold' } } });
      const outputs = await createFlow({ name: 'outputs', initialState: {}, store })
        .start('make', () => ({ handler: () => 1 }))
        .kickoff({ inputs: { id: 'p2' } });
      expect(outputs.failures.make?.details).toMatchObject({ path: 'outputs.make.handler' });
    });

    it('fails a task whose structured output no store can carry (invalid_state), before it is written', async () => {
      const agent = new Agent({ role: 'Maker', llm: () => '{"n":1}', maxRetries: 0 });
      // A guardrail that replaces the parsed output with one holding a function.
      const task = new Task({
        name: 'make',
        description: 'make',
        agent,
        outputSchema: z.object({ n: z.number() }),
        guardrail: (output) => ({ ok: true, value: { ...(output.structured as object), later: () => 1 } }),
      });
      const out = await new Crew({ tasks: [task], store }).kickoff({ executionId: 'o1' });
      expect(out.status).toBe('failed');
      expect(out.failures.make).toMatchObject({
        code: 'invalid_state',
        details: { path: 'structured.later' },
      });
    });
  });
}
