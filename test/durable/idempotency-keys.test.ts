import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paymentsOf } from '../fixtures/durable/charges.js';
import { Child, countRuns, runLogs } from './processes.js';
import { type ProvidedStore, services, storeKinds } from './store-specs.js';

const Database = createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;
const freshLog = runLogs('statecrew-idempotency-');
if (!services) console.log('PostgreSQL and Redis cases skipped: STATECREW_NO_SERVICES=1');

/** The payments the service kept for the runs logging to `log`: one row per idempotency key. */
function payments(log: string): { key: string | null; payment_order: string }[] {
  const db = new Database(paymentsOf(log), { readonly: true });
  try {
    return db.prepare('SELECT key, payment_order FROM payments').all() as {
      key: string | null;
      payment_order: string;
    }[];
  } finally {
    db.close();
  }
}

for (const [kind, provide] of storeKinds()) {
  describe(`idempotency keys across a takeover on ${kind}`, () => {
    let provided: ProvidedStore;

    beforeAll(() => {
      provided = provide();
    });

    afterAll(async () => {
      await provided?.cleanup();
    });

    /**
     * Kicks `what` off in a process of its own, which makes the charge and is killed (SIGKILL) before
     * the node run is committed; then another process resumes the run, which charges again.
     */
    async function chargeTwice(what: 'charges' | 'charging', id: string, log: string) {
      const owner = await Child.start(provided.spec, log);
      owner.send({ op: 'kickoff', what, id, hangAt: 'charge', inputs: { order: 'o-42' } }).catch(() => {});
      await owner.when((line) => line.event === 'running' && line.name === 'charge');
      await owner.kill();
      const other = await Child.start(provided.spec, log);
      try {
        return await other.send({ op: 'resume', what, id });
      } finally {
        await other.close();
      }
    }

    it('lets a crew tool that uses its idempotencyKey pay once, though it is called twice', async () => {
      const log = freshLog();
      const reply = await chargeTwice('charges', `crew-${kind}`, log);
      expect(reply).toMatchObject({ ok: true, status: 'completed', output: 'paid: charged o-42' });
      // One payment, though the charge was made twice.
      expect(payments(log)).toHaveLength(1);
      const calls = [...countRuns(log)];
      // Called by the killed owner and by the one that took over, with one key, kept with the payment.
      expect(calls).toEqual([[expect.stringMatching(/^charge \S+/), 2]]);
      expect(payments(log)).toEqual([{ key: calls[0]?.[0].slice('charge '.length), payment_order: 'o-42' }]);
    }, 60_000);

    it('lets a flow step that uses its idempotencyKey pay once, though it runs twice', async () => {
      const log = freshLog();
      const reply = await chargeTwice('charging', `flow-${kind}`, log);
      expect(reply).toMatchObject({ ok: true, status: 'completed', output: 'receipt: charged o-42' });
      // One payment, though the charge was made twice.
      expect(payments(log)).toHaveLength(1);
      const calls = [...countRuns(log)];
      expect(calls).toEqual([[expect.stringMatching(/^charge \S+/), 2]]);
      expect(payments(log)).toEqual([{ key: calls[0]?.[0].slice('charge '.length), payment_order: 'o-42' }]);
    }, 60_000);
  });
}
