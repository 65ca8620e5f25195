import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../src/index.js';
import { Child, countRuns, runLogs } from '../durable/processes.js';
import { type ProvidedStore, services, storeKinds } from '../durable/store-specs.js';
import { chainFlow } from '../fixtures/durable/definitions.js';
import { openStore } from '../fixtures/durable/stores.js';

const freshLog = runLogs('statecrew-flow-fork-');
if (!services) console.log('PostgreSQL and Redis cases skipped: STATECREW_NO_SERVICES=1');

const STEPS = ['s1', 's2', 's3', 's4', 's5', 's6'];

for (const [kind, provide] of storeKinds()) {
  describe(`flow history and forks on ${kind}`, () => {
    let provided: ProvidedStore;
    let store: Store;
    const log = freshLog();

    beforeAll(async () => {
      provided = provide();
      store = await openStore(provided.spec);
    }, 60_000);

    afterAll(async () => {
      await store?.close();
      await provided?.cleanup();
    });

    it('lists every step once, in commit order, across a SIGKILL mid-step and a resume in another process', async () => {
      const id = `hist-${kind}`;
      const first = await Child.start(provided.spec, log);
      first.send({ op: 'kickoff', what: 'flow', id, hangAt: 's3', inputs: { topic: 'H' } }).catch(() => {}); // it is killed
      await first.when((line) => line.event === 'running' && line.name === 's3');
      await first.kill(); // SIGKILL while s3 runs
      const before = await chainFlow(store, log).history(id);
      expect(before.checkpoints.map((c) => c.checkpoint)).toEqual(['s1', 's2']);

      const out = await chainFlow(store, log).resume(id);
      expect(out.status).toBe('completed');
      const history = await chainFlow(store, log).history(id);
      expect(history).toMatchObject({ id, kind: 'flow', name: 'chain', status: 'completed' });
      expect(history.checkpoints.map((c) => [c.seq, c.checkpoint])).toEqual(STEPS.map((s, i) => [i + 1, s]));
      expect(history.checkpoints.map((c) => (c.state as { seen: string[] }).seen.length)).toEqual([
        1, 2, 3, 4, 5, 6,
      ]);
      const page = await chainFlow(store, log).history(id, { after: 4 });
      expect(page.checkpoints.map((c) => c.seq)).toEqual([5, 6]);
      expect(countRuns(log).get('s3 H')).toBe(2); // in flight when the process died, and once more
    }, 60_000);

    // Forks the run the case above resumed.
    it('forks the resumed run twice at once: two runs, the kept steps not run again', async () => {
      const id = `hist-${kind}`;
      const flow = chainFlow(store, log);
      const [a, b] = await Promise.all([
        flow.fork(id, { at: 's4', state: { topic: 'A' }, id: `fork-a-${kind}` }),
        flow.fork(id, { at: 4, outputs: { s4: 'edited' }, state: { topic: 'B' }, id: `fork-b-${kind}` }),
      ]);
      expect([a.status, b.status]).toEqual(['completed', 'completed']);
      expect(a.forkedFrom).toEqual({ runId: id, checkpoint: 's4' });
      expect(b.outputs.s4).toBe('edited');
      expect(a.state.seen).toEqual(STEPS);
      const runs = countRuns(log);
      expect(['s1', 's2', 's4'].map((s) => runs.get(`${s} H`))).toEqual([1, 1, 1]);
      expect(['s5 A', 's6 A', 's5 B', 's6 B'].map((line) => runs.get(line))).toEqual([1, 1, 1, 1]);
      expect(['s1 A', 's4 A', 's1 B', 's4 B'].map((line) => runs.get(line))).toEqual([
        undefined,
        undefined,
        undefined,
        undefined,
      ]);
      const history = await flow.history(`fork-b-${kind}`);
      expect(history.forkedFrom).toEqual({ runId: id, checkpoint: 's4' });
      expect(history.checkpoints.map((c) => [c.seq, c.checkpoint, c.output])).toEqual([
        [1, 's1', 's1(H)'],
        [2, 's2', 's2(H)'],
        [3, 's3', 's3(H)'],
        [4, 's4', 'edited'],
        [5, 's5', 's5(B)'],
        [6, 's6', 's6(B)'],
      ]);
      expect((await flow.getRun(`fork-a-${kind}`))?.forkedFrom).toEqual({ runId: id, checkpoint: 's4' });
    }, 60_000);
  });
}
