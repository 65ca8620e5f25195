import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExecutionDocument, type Store } from '../../src/index.js';
import { openStore } from '../fixtures/durable/stores.js';
import { Child, countRuns, type Reply, runLogs } from './processes.js';
import { type ProvidedStore, services, storeKinds } from './store-specs.js';

const freshLog = runLogs('statecrew-approvals-');
if (!services) console.log('PostgreSQL and Redis cases skipped: STATECREW_NO_SERVICES=1');

const CALL = 'refund.1.1.0';

for (const [kind, provide] of storeKinds()) {
  describe(`tool calls waiting for approval across processes on ${kind}`, () => {
    let provided: ProvidedStore;
    let store: Store;
    let first: Child;
    const log = freshLog();

    beforeAll(async () => {
      provided = provide();
      store = await openStore(provided.spec);
      first = await Child.start(provided.spec, log);
    }, 60_000);

    afterAll(async () => {
      await first?.close();
      await store?.close();
      await provided?.cleanup();
    });

    /** Kicks off a refund of `order` in the first child: it pauses before the call, and is kept so. */
    async function pausedRefund(order: string): Promise<void> {
      const paused = await first.send({
        op: 'kickoff',
        what: 'refunds',
        id: order,
        inputs: { order, amount: 120 },
      });
      expect(paused).toMatchObject({
        ok: true,
        status: 'paused',
        pending: [
          { kind: 'approval', nodeId: 'refund', tool: 'refund', args: { order, amount: 120 }, callId: CALL },
        ],
      });
      expect(await store.readRun(order)).toMatchObject({ status: 'paused', lease: null });
      expect(countRuns(log).get(`refund ${order} 120`)).toBeUndefined();
    }

    /** Resumes refund `order` from a fresh process, with `approvals` if given; its reply. */
    async function resumeFromFresh(order: string, approvals?: Record<string, unknown>): Promise<Reply> {
      const fresh = await Child.start(provided.spec, log);
      try {
        return await fresh.send({
          op: 'resume',
          what: 'refunds',
          id: order,
          ...(approvals ? { approvals } : {}),
        });
      } finally {
        await fresh.close();
      }
    }

    it('approved from a fresh process: the tool runs there once and the run completes', async () => {
      const order = `approve-${kind}`;
      await pausedRefund(order);
      const reply = await resumeFromFresh(order, { [CALL]: { approve: true } });
      expect(reply).toMatchObject({ ok: true, status: 'completed', raw: 'done: refunded 120', pending: [] });
      expect(countRuns(log).get(`refund ${order} 120`)).toBe(1);
      expect(await store.readRun(order)).toMatchObject({ status: 'completed', lease: null });
      expect((await ExecutionDocument.fromStore(store, order))?.results[0]).toMatchObject({
        status: 'completed',
        raw: 'done: refunded 120',
        attempts: 1,
      });
    }, 60_000);

    it('refused from a fresh process: the model reads the feedback, the tool never runs', async () => {
      const order = `refuse-${kind}`;
      await pausedRefund(order);
      const reply = await resumeFromFresh(order, { [CALL]: { approve: false, feedback: 'no receipt' } });
      expect(reply).toMatchObject({
        ok: true,
        status: 'completed',
        raw: 'done: Error: approval_refused: a human refused this call: no receipt',
      });
      expect(countRuns(log).get(`refund ${order} 120`)).toBeUndefined();
    }, 60_000);

    it('an approved call whose process is killed while the tool runs goes on with the approval when resumed without answers', async () => {
      await pausedRefund('o-crash');
      const doomed = await Child.start(provided.spec, log);
      doomed
        .send({
          op: 'resume',
          what: 'refunds',
          id: 'o-crash',
          approvals: { [CALL]: { approve: true } },
          hangAt: 'refund',
        })
        .catch(() => {}); // it is killed
      await doomed.when((line) => line.event === 'running' && line.name === 'refund');
      await doomed.kill();
      expect(await store.readRun('o-crash')).toMatchObject({ status: 'running' });
      // A fresh process resumes it without answers: the answer it was given was kept, so the
      // approved call runs again (at least once per call, as a step in flight) and nobody is asked twice.
      const reply = await resumeFromFresh('o-crash');
      expect(reply).toMatchObject({ ok: true, status: 'completed', raw: 'done: refunded 120', pending: [] });
      expect(countRuns(log).get('refund o-crash 120')).toBe(2);
    }, 90_000);

    it('of two approvals sent at once from two processes exactly one goes on, and the tool runs once', async () => {
      const [second, third] = await Promise.all([
        Child.start(provided.spec, log),
        Child.start(provided.spec, log),
      ]);
      try {
        for (let trial = 0; trial < 5; trial += 1) {
          const order = `race-${kind}-${trial}`;
          await pausedRefund(order);
          const approve = {
            op: 'resume',
            what: 'refunds',
            id: order,
            approvals: { [CALL]: { approve: true } },
          };
          const replies = await Promise.all([second.send(approve), third.send(approve)]);
          expect(
            replies.filter((r) => r.ok),
            JSON.stringify(replies),
          ).toHaveLength(1);
          const refused = replies.find((r) => !r.ok) as Reply;
          expect(['not_paused', 'run_locked']).toContain(refused.code);
          expect(countRuns(log).get(`refund ${order} 120`)).toBe(1);
          expect(await store.readRun(order)).toMatchObject({ status: 'completed', lease: null });
        }
      } finally {
        await Promise.all([second.close(), third.close()]);
      }
    }, 180_000);
  });
}
