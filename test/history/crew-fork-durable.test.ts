import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../src/index.js';
import { Child, countRuns, runLogs } from '../durable/processes.js';
import { type ProvidedStore, services, storeKinds } from '../durable/store-specs.js';
import { chainCrew, TASKS } from '../fixtures/durable/definitions.js';
import { openStore } from '../fixtures/durable/stores.js';

const freshLog = runLogs('statecrew-crew-fork-');
if (!services) console.log('PostgreSQL and Redis cases skipped: STATECREW_NO_SERVICES=1');

/** The calls a run log's context file kept: each task line, with the context it was given. */
function contexts(log: string): { task: string; context: string }[] {
  return readFileSync(`${log}.context`, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { task: string; context: string });
}

for (const [kind, provide] of storeKinds()) {
  describe(`crew history and forks on ${kind}`, () => {
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

    /** Kicks the chain crew off in a process of its own on `topic`; resolves once `hangAt` runs there. */
    async function hanging(id: string, topic: string, hangAt: string): Promise<Child> {
      const child = await Child.start(provided.spec, log);
      child.send({ op: 'kickoff', what: 'crew', id, hangAt, inputs: { topic } }).catch(() => {}); // killed
      await child.when((line) => line.event === 'running' && line.name === hangAt);
      return child;
    }

    it('lists each task once, seq 1..n, after a SIGKILL mid-task and a resume here; a fork of it calls the model only after the checkpoint', async () => {
      const id = `killed-${kind}`;
      await (await hanging(id, 'KILL', 't3')).kill(); // SIGKILL while t3 runs
      const before = await chainCrew(store, log).history(id);
      expect(before.status).toBe('running');
      expect(before.checkpoints.map((c) => [c.seq, c.nodeId])).toEqual([
        [1, 't1'],
        [2, 't2'],
      ]);
      const resumed = await chainCrew(store, log).resume(id);
      expect(resumed.metadata.restored).toEqual(['t1', 't2']);
      const history = await chainCrew(store, log).history(id);
      expect(history).toMatchObject({ id, kind: 'crew', name: 'chain', status: 'completed' });
      expect(history.checkpoints.map((c) => [c.seq, c.nodeId, c.status])).toEqual(
        TASKS.map((task, i) => [i + 1, task, 'completed']),
      );

      const forked = await chainCrew(store, log, undefined, 'previous').fork(id, {
        at: 't2',
        outputs: { t2: 'an EDITED t2' },
        id: `${id}-fork`,
      });
      expect(forked.status).toBe('completed');
      const runs = countRuns(log);
      // t1 and t2 ran once (in the killed process), t3 twice (killed, resumed), then once in the fork.
      expect(TASKS.map((t) => runs.get(`${t} on KILL`))).toEqual([1, 1, 3, 2, 2, 2]);
      const t3 = contexts(log).filter((call) => call.task === 't3 on KILL');
      expect(t3).toHaveLength(1);
      expect(t3[0]?.context).toContain('an EDITED t2');
      const fork = await chainCrew(store, log).history(`${id}-fork`);
      expect(fork.forkedFrom).toEqual({ runId: id, checkpoint: 't2' });
      expect(fork.checkpoints.map((c) => [c.seq, c.nodeId])).toEqual(TASKS.map((t, i) => [i + 1, t]));
      expect(fork.checkpoints[1]?.output).toBe('an EDITED t2');
    }, 60_000);

    it('forks a run another process still runs from its committed checkpoints only', async () => {
      const id = `live-${kind}`;
      const owner = await hanging(id, 'LIVE', 't4');
      try {
        const crew = chainCrew(store, log);
        await expect(crew.fork(id, { at: 't4' })).rejects.toMatchObject({ code: 'checkpoint_not_found' });
        const out = await crew.fork(id, { at: 't3', id: `${id}-fork` });
        expect(out.metadata.restored).toEqual(['t1', 't2', 't3']);
        expect(out.status).toBe('completed');
        expect(await store.readRun(id)).toMatchObject({ status: 'running' });
      } finally {
        await owner.kill();
      }
      const runs = countRuns(log);
      expect(TASKS.map((t) => runs.get(`${t} on LIVE`))).toEqual([1, 1, 1, 2, 1, 1]);
    }, 60_000);

    it('makes two runs of two forks at once', async () => {
      const id = `twice-${kind}`;
      await chainCrew(store, log).kickoff({ executionId: id, inputs: { topic: 'TWICE' } });
      const crew = chainCrew(store, log);
      const [a, b] = await Promise.all([
        crew.fork(id, { at: 5, outputs: { t5: 'A' } }),
        crew.fork(id, { at: 5, outputs: { t5: 'B' } }),
      ]);
      expect(a.metadata.executionId).not.toBe(b.metadata.executionId);
      expect(countRuns(log).get('t6 on TWICE')).toBe(3);
      const outputs = await Promise.all(
        [a, b].map(async (out) =>
          (await crew.history(out.metadata.executionId)).checkpoints.map((c) => c.output),
        ),
      );
      expect(outputs.map((o) => [o.length, o[4]])).toEqual([
        [6, 'A'],
        [6, 'B'],
      ]);
    }, 60_000);
  });
}
