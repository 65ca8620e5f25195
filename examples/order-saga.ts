/**
 * An order saga that handles failure and time, persisted in the default SQLite file
 * (`.statecrew/statecrew.db`, or `STATECREW_DB`). Two invocations, as two processes would run it:
 *
 *   npx tsx examples/order-saga.ts order     three orders: a card the network fails once (retried), a
 *                                            declined card (refunded and the customer told: the failure
 *                                            is handled, the run completes), a good card; the shipped
 *                                            orders pause, waiting for `delivery.confirmed`
 *   npx tsx examples/order-saga.ts deliver   later, another process: the carrier's webhook signals one
 *                                            delivery; a runner whose clock reads a week later times the
 *                                            other out (`lost` → investigate)
 *
 * `npm start` runs both halves, one after the other.
 */
import { createFlow, createRunner, failed, SqliteStore, type Store } from '../src/index.js';
import { isMain } from './main.js';

const DAY = 24 * 60 * 60 * 1000;

/** Charge attempts per order: an attempt's state changes are undone when it fails, so they are counted here. */
const attempts = new Map<string, number>();

/** What the charge step throws for a card: a network blip a retry mends, or a decline (402) no retry can. */
function cardError(card: string, attempt: number): Error | undefined {
  if (card === 'flaky' && attempt === 1)
    return Object.assign(new Error('card network timeout'), { status: 503 });
  if (card === 'declined') return Object.assign(new Error('card declined'), { status: 402 });
  return undefined;
}

/**
 * charge (retried twice, 5 s each) → ship → wait for `delivery.confirmed` (7 days, else `lost`) →
 * close | investigate; a charge that fails for good → refund → notify.
 */
export function orderSaga(store: Store) {
  return createFlow({
    name: 'order-saga',
    initialState: { customer: '', card: '', amount: 0, charged: false },
    store,
  })
    .start(
      'charge',
      ({ state }) => {
        const attempt = (attempts.get(state.id) ?? 0) + 1;
        attempts.set(state.id, attempt);
        state.charged = true; // kept only if this attempt succeeds
        const error = cardError(state.card, attempt);
        if (error !== undefined) throw error;
        return `charged $${state.amount} to ${state.customer} (attempt ${attempt})`;
      },
      { retries: 2, retryDelayMs: 10, timeoutMs: 5000 },
    )
    .listen('refund', failed('charge'), ({ payload, state }) => {
      const { error } = payload as { error: { message: string } };
      return `nothing charged to ${state.customer} (${error.message}); order cancelled`;
    })
    .listen('notify', 'refund', ({ state }) => `emailed ${state.customer}: payment failed`)
    .listen(
      'ship',
      'charge',
      ({ state, payload }) => `${String(payload)}; parcel for ${state.customer} shipped`,
    )
    .wait('delivery', 'ship', { event: 'delivery.confirmed', timeoutMs: 7 * DAY, onTimeout: 'lost' })
    .listen('close', 'delivery', ({ payload, state }) => {
      const { signedBy } = payload as { signedBy: string };
      return `order of ${state.customer} closed: delivered, signed by ${signedBy}`;
    })
    .listen('investigate', 'lost', ({ state }) => `no delivery for ${state.customer} in 7 days: claim filed`);
}

/** The first half: three orders. Shipped ones pause, stored, waiting for their delivery. */
async function order(store: Store): Promise<void> {
  const saga = orderSaga(store);
  for (const [customer, card, amount] of [
    ['Ada', 'flaky', 30],
    ['Bob', 'declined', 45],
    ['Cy', 'good', 60],
  ] as const) {
    const out = await saga.kickoff({ inputs: { customer, card, amount } });
    console.log(`\n== order of ${customer} (run ${out.id})`);
    console.log(`  status: ${out.status}; trail: ${out.trail.join(' → ')}`);
    const charge = out.failures.charge;
    if (charge?.handled === true) console.log(`  charge failed, handled: ${charge.message}`);
    if (out.outputs.ship !== undefined) console.log(`  ${String(out.outputs.ship)}`);
    if (out.pending?.kind === 'event') {
      const until = new Date(out.pending.timeoutAt ?? 0).toISOString();
      console.log(`  waiting for "${out.pending.event}" until ${until}`);
    } else console.log(`  ${String(out.output)}`);
  }
}

/**
 * The second half, in another process: the carrier confirms Ada's delivery (`saga.signal`), and a
 * runner whose clock reads a week later finds Cy's deadline passed and times the wait out.
 */
async function deliver(store: Store): Promise<void> {
  const saga = orderSaga(store);
  const paused = await store.listRuns({ statuses: ['paused'] });
  const waiting = paused.filter((head) => head.kind === 'flow' && head.name === 'order-saga');
  const runs = await Promise.all(waiting.map(async (head) => saga.getRun(head.id)));
  const ada = runs.find((run) => (run?.state as { customer?: string } | undefined)?.customer === 'Ada');
  if (ada === undefined) {
    console.log('\n== no order is waiting for its delivery');
    return;
  }
  const delivered = await saga.signal(ada.id, 'delivery.confirmed', { signedBy: 'A. Lovelace' });
  console.log(`\n== delivery.confirmed for run ${ada.id}`);
  console.log(`  status: ${delivered.status}; ${String(delivered.output)}`);
  const weekLater = () => Date.now() + 8 * DAY;
  const runner = createRunner({ store, flows: [saga], clock: weekLater });
  const report = await runner.recover();
  await runner.close();
  for (const id of report.timedOut) {
    const out = await saga.resume(id); // completed: its stored result
    console.log(`\n== a week later, run ${id} timed out`);
    console.log(`  status: ${out.status}; ${String(out.output)}`);
  }
}

async function main(): Promise<void> {
  const store = new SqliteStore();
  try {
    if (process.argv[2] === 'deliver') await deliver(store);
    else await order(store);
  } finally {
    await store.close();
  }
}

if (isMain(import.meta.url)) await main();
