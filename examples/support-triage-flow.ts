/**
 * Support triage as a flow: a triage crew runs inside the start step, a router decides on the refund
 * amount (auto_refund | needs_review), a customer lookup runs beside it, and an `and` join waits for
 * both before the reply. Two tickets take the two branches.
 *
 * Run: npm start (after the crew examples), or npx tsx examples/support-triage-flow.ts
 */
import { Agent, and, Crew, createFlow, or, Task } from '../src/index.js';
import { createScriptedModel } from '../src/testing.js';
import { isMain } from './main.js';

const llm = createScriptedModel((request) => {
  const task = request.prompt.split('\nTask: ')[1]?.split('\n')[0] ?? '';
  return task.startsWith('Classify') ? 'category: refund' : `summary: ${task.replace('Summarize ', '')}`;
});
const triager = new Agent({ role: 'Triager', goal: 'route support tickets', llm });
/** The crew that triages a ticket inside the flow's start step. */
export const triageCrew = new Crew({
  tasks: [
    new Task({ name: 'classify', description: 'Classify the ticket: {ticket}', agent: triager }),
    new Task({ name: 'summarize', description: 'Summarize {ticket}', agent: triager }),
  ],
});

/** The support-triage flow. */
export const support = createFlow({
  name: 'support-triage',
  initialState: { ticket: '', amount: 0, customer: '', notes: [] as string[] },
})
  .start('triage', async ({ state, kickoff }) => {
    const out = await kickoff(triageCrew, { inputs: { ticket: state.ticket } });
    state.notes.push(out.tasksOutput[0]?.raw ?? '');
    return out.raw;
  })
  .router('decide', 'triage', ({ state }) => (state.amount <= 50 ? 'auto_refund' : 'needs_review'), {
    routes: ['auto_refund', 'needs_review'],
  })
  .listen('refund', 'auto_refund', ({ state }) => `refunded $${state.amount}`)
  .listen('review', 'needs_review', ({ state }) => `sent $${state.amount} to a human reviewer`)
  .listen('lookup', 'triage', ({ state }) => `${state.customer} has 3 earlier orders`)
  .listen('reply', or(and('refund', 'lookup'), and('review', 'lookup')), ({ state, payload, outputs }) => {
    const action = outputs.refund ?? outputs.review;
    return `Dear ${state.customer}: ${String(action)}. (${String(payload)})`;
  });

async function main(): Promise<void> {
  for (const ticket of [
    { ticket: 'Order 1042 arrived broken', amount: 35, customer: 'Ada' },
    { ticket: 'Charged twice for a laptop', amount: 1299, customer: 'Grace' },
  ]) {
    const run = support.run({ inputs: ticket });
    let crewEvents = 0;
    run.events$.subscribe((e) => {
      // The step's own node.* events carry the flow's id; its crew's carry the crew's execution id.
      if (e.step === 'triage' && e.runId !== run.id) crewEvents += 1;
    });
    const out = await run.result;
    console.log(`\n== flow: ${ticket.customer}'s ticket ($${ticket.amount})`);
    console.log(`  status: ${out.status}; route: ${String(out.outputs.decide)}`);
    console.log(`  trail: ${out.trail.join(' → ')}`);
    console.log(`  triage crew events seen in the flow: ${crewEvents}`);
    console.log(`  reply: ${String(out.output)}`);
  }
}

if (isMain(import.meta.url)) await main();
