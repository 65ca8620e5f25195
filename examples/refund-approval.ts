/**
 * Refund approval with a human in the loop, persisted in the default SQLite file
 * (`.statecrew/statecrew.db`, or `STATECREW_DB`). Two invocations, as two processes would run it:
 *
 *   npx tsx examples/refund-approval.ts request   a customer asks for refunds: small ones are paid at
 *                                                 once, a large one pauses for a human and is stored
 *   npx tsx examples/refund-approval.ts approve   later, another process (a web handler, a CLI) finds
 *                                                 the runs waiting for a human and resumes them by id
 *
 * `npm start` runs both halves, one after the other.
 */
import { createFlow, or, SqliteStore } from '../src/index.js';
import { isMain } from './main.js';

/** Refunds up to this amount are paid without asking anyone. */
const THRESHOLD = 100;

/**
 * The refund flow: check, route by size, a human approves large refunds, then pay or decline. Over
 * `store` when given (a server passes its own to each run).
 */
export function refundFlow(store?: SqliteStore) {
  return createFlow({
    name: 'refund-approval',
    initialState: { customer: '', amount: 0, paid: false, note: '' },
    ...(store === undefined ? {} : { store }),
  })
    .start('check', ({ state }) => `${state.customer} asks for $${state.amount}`)
    .router('size', 'check', ({ state }) => (state.amount > THRESHOLD ? 'large' : 'small'), {
      routes: ['small', 'large'],
    })
    .human('approval', 'large', {
      routes: ['approved', 'rejected'],
      prompt: ({ state }) => `Approve a refund of $${state.amount} to ${state.customer}?`,
    })
    .listen('pay', or('small', 'approved'), ({ state }) => {
      state.paid = true;
      return `paid $${state.amount} to ${state.customer}`;
    })
    .listen('decline', 'rejected', ({ state, payload }) => {
      state.note = String((payload as { feedback?: unknown }).feedback ?? '');
      return `declined $${state.amount} for ${state.customer}`;
    });
}

/** The first half: new refund requests. Each run's id is new; the large one pauses and is stored. */
async function request(store: SqliteStore): Promise<void> {
  const flow = refundFlow(store);
  for (const [customer, amount] of [
    ['Ada', 40],
    ['Grace', 480],
  ] as const) {
    const out = await flow.kickoff({ inputs: { customer, amount } });
    console.log(`\n== refund request: ${customer}, $${amount} (run ${out.id})`);
    console.log(`  status: ${out.status}; trail: ${out.trail.join(' → ')}`);
    if (out.pending?.kind === 'human') console.log(`  waiting for a human: "${out.pending.prompt}"`);
    else console.log(`  ${String(out.output)}`);
  }
}

/**
 * The second half, in another process: what a web handler does when the reviewer clicks "approve" —
 * `flow.resume(id, { route, feedback })`. Here it finds every run waiting for a human and approves it.
 */
async function approve(store: SqliteStore): Promise<void> {
  const flow = refundFlow(store);
  const ids = await store.executions('flow_runs');
  let resumed = 0;
  for (const id of ids) {
    const run = await flow.getRun(id).catch(() => undefined); // runs of other flows are skipped
    if (run?.status !== 'paused' || run.flow !== 'refund-approval') continue;
    const out = await flow.resume(id, { route: 'approved', feedback: 'receipt checked' });
    resumed += 1;
    console.log(`\n== approval of run ${id}`);
    console.log(`  status: ${out.status}; trail: ${out.trail.join(' → ')}`);
    console.log(`  ${String(out.output)}`);
  }
  if (resumed === 0) console.log('\n== no refund is waiting for approval');
}

async function main(): Promise<void> {
  const store = new SqliteStore();
  try {
    if (process.argv[2] === 'approve') await approve(store);
    else await request(store);
  } finally {
    await store.close();
  }
}

if (isMain(import.meta.url)) await main();
