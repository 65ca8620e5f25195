import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../src/index.js';
import { approvalFlow } from '../fixtures/durable/definitions.js';
import { openStore } from '../fixtures/durable/stores.js';
import { Child, countRuns, type Reply, runLogs } from './processes.js';
import { type ProvidedStore, services, storeKinds } from './store-specs.js';

const freshLog = runLogs('statecrew-one-owner-');
if (!services) console.log('PostgreSQL and Redis cases skipped: STATECREW_NO_SERVICES=1');

/** The one that ran the run, and the one that was refused (or found it done, having run nothing). */
function winnerAndLoser(replies: Reply[]): [Reply, Reply] {
  const winner = replies.find((r) => r.ok && r.status === 'completed');
  expect(winner, JSON.stringify(replies)).toBeDefined();
  const loser = replies.find((r) => r !== winner) as Reply;
  if (!loser.ok) expect(loser.code, loser.message).toBe('run_locked');
  else expect(loser.status).toBe('completed');
  return [winner as Reply, loser];
}

for (const [kind, provide] of storeKinds()) {
  describe(`one owner per run on ${kind}`, () => {
    let provided: ProvidedStore;
    let second: Child;
    let third: Child;
    const log = freshLog();

    beforeAll(async () => {
      provided = provide();
      [second, third] = await Promise.all([Child.start(provided.spec, log), Child.start(provided.spec, log)]);
    }, 60_000);

    afterAll(async () => {
      await Promise.all([second?.close(), third?.close()]);
      await provided?.cleanup();
    });

    /** Kicks `what` off in a process of its own and kills it (SIGKILL) while `hangAt` runs. */
    async function crash(what: 'flow' | 'crew', id: string, hangAt: string): Promise<void> {
      const first = await Child.start(provided.spec, log);
      first.send({ op: 'kickoff', what, id, hangAt, inputs: { topic: 'AI' } }).catch(() => {}); // it is killed
      await first.when((line) => line.event === 'running' && line.name === hangAt);
      await first.kill();
    }

    it('resumes a crashed flow from two processes at once: every step after the crash runs once in all', async () => {
      await crash('flow', `flow-${kind}`, 's3');
      const command = { op: 'resume', what: 'flow', id: `flow-${kind}` };
      // Sent in one turn of the event loop: both processes claim at the same moment.
      winnerAndLoser(await Promise.all([second.send(command), third.send(command)]));
      const runs = countRuns(log);
      expect(['s1', 's2', 's4', 's5', 's6'].map((s) => runs.get(`${s} AI`))).toEqual([1, 1, 1, 1, 1]);
      expect(runs.get('s3 AI')).toBe(2); // the step in flight when the process died, and once more
    }, 60_000);

    it('resumes a crashed crew from two processes at once: every task after the crash runs once in all', async () => {
      await crash('crew', `crew-${kind}`, 't3');
      const command = { op: 'resume', what: 'crew', id: `crew-${kind}` };
      const [winner] = winnerAndLoser(await Promise.all([second.send(command), third.send(command)]));
      expect(winner.restored).toEqual(['t1', 't2']);
      const runs = countRuns(log);
      expect(['t1', 't2', 't4', 't5', 't6'].map((t) => runs.get(`${t} on AI`))).toEqual([1, 1, 1, 1, 1]);
      expect(runs.get('t3 on AI')).toBe(2);
    }, 60_000);

    it('resumes a crashed crew with context: all from two processes at once: the task in flight reads every earlier output again', async () => {
      // Its own topic: the log's lines for the other cases' tasks stay theirs.
      const id = `crew-all-${kind}`;
      const first = await Child.start(provided.spec, log);
      first
        .send({ op: 'kickoff', what: 'crew', id, hangAt: 't4', context: 'all', inputs: { topic: 'ALL' } })
        .catch(() => {}); // it is killed
      await first.when((line) => line.event === 'running' && line.name === 't4');
      await first.kill(); // SIGKILL while t4 runs
      const command = { op: 'resume', what: 'crew', id, context: 'all' };
      const [winner] = winnerAndLoser(await Promise.all([second.send(command), third.send(command)]));
      expect(winner.restored).toEqual(['t1', 't2', 't3']);
      const calls = readFileSync(`${log}.context`, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { task: string; context: string });
      const t4 = calls.filter((call) => call.task === 't4 on ALL');
      // Once in the killed process, once in the process that won the run: the same context both times.
      expect(t4).toHaveLength(2);
      expect(t4[1]?.context).toBe(t4[0]?.context);
      const parts = (t4[1]?.context ?? '').split('\n\n----------\n\n');
      expect(parts.map((part) => part.split(' <- ')[0])).toEqual(['t1 on ALL', 't2 on ALL', 't3 on ALL']);
      expect(calls.filter((call) => call.task === 't6 on ALL')).toHaveLength(1);
    }, 60_000);

    it('refuses a third process resuming a live run at once (run_locked, naming the owner)', async () => {
      const owner = await Child.start(provided.spec, log);
      try {
        owner.send({ op: 'kickoff', what: 'flow', id: `live-${kind}`, hangAt: 's2' }).catch(() => {});
        await owner.when((line) => line.event === 'running' && line.name === 's2');
        const reply = await second.send({ op: 'resume', what: 'flow', id: `live-${kind}` });
        expect(reply).toMatchObject({ ok: false, code: 'run_locked' });
        const pid = (await owner.when((l) => l.event === 'ready')).pid as number;
        expect(reply.message).toContain(`:${pid}`);
        // Refused while the owner still runs s2 and holds the run: the resume waited neither for the
        // owner to finish nor for its lease to run out (the owner renews it as long as it lives).
        const store = await openStore(provided.spec);
        try {
          expect(await store.readRun(`live-${kind}`)).toMatchObject({
            status: 'running',
            lease: { owner: expect.stringMatching(new RegExp(`:${pid}$`)) },
          });
        } finally {
          await store.close();
        }
      } finally {
        await owner.kill();
      }
    }, 60_000);

    it('takes exactly one of two opposite answers to a paused human step, 20 times in a row', async () => {
      const store: Store = await openStore(provided.spec);
      try {
        for (let trial = 0; trial < 20; trial += 1) {
          const id = `answer-${kind}-${trial}`;
          const paused = await approvalFlow(store, log).kickoff({ inputs: { id } });
          expect(paused.status).toBe('paused');
          const replies = await Promise.all([
            second.send({ op: 'resume', what: 'approval', id, answer: { route: 'approved' } }),
            third.send({ op: 'resume', what: 'approval', id, answer: { route: 'rejected' } }),
          ]);
          expect(
            replies.filter((r) => r.ok),
            JSON.stringify(replies),
          ).toHaveLength(1);
          const refused = replies.find((r) => !r.ok) as Reply;
          expect(['not_paused', 'run_locked']).toContain(refused.code);
          const runs = countRuns(log);
          expect((runs.get(`pay ${id}`) ?? 0) + (runs.get(`refuse ${id}`) ?? 0)).toBe(1);
        }
      } finally {
        await store.close();
      }
    }, 120_000);
  });
}
