/**
 * Evals: a support-triage flow scored over a small dataset with three scorers (one a scripted
 * judge), its coverage naming the route no case took; then the same dataset with a worse model,
 * compared against the first report to show the case that regressed.
 *
 * Run: npm start (after the other examples), or npx tsx examples/evals.ts
 */
import {
  Agent,
  Crew,
  compareEvals,
  createFlow,
  type EvalCase,
  type EvalReport,
  evaluate,
  formatComparison,
  formatReport,
  includes,
  type Llm,
  llmJudge,
  Task,
} from '../src/index.js';
import { createScriptedModel } from '../src/testing.js';
import { isMain } from './main.js';

/** The triage flow with `llm` classifying the ticket: refunds of $50 or less are automatic. */
export function triageFlow(llm: Llm) {
  const agent = new Agent({ role: 'Triager', goal: 'classify support tickets', llm });
  const crew = new Crew({
    tasks: [new Task({ name: 'classify', description: 'Classify the ticket: {ticket}', agent })],
  });
  return createFlow({ name: 'triage', initialState: { ticket: '', amount: 0 } })
    .start('classify', async ({ state, kickoff }) => {
      const out = await kickoff(crew, { inputs: { ticket: state.ticket } });
      return out.raw;
    })
    .router('decide', 'classify', ({ state }) => (state.amount <= 50 ? 'auto_refund' : 'needs_review'), {
      routes: ['auto_refund', 'needs_review'],
    })
    .listen(
      'refund',
      'auto_refund',
      ({ state, outputs }) => `${String(outputs.classify)}: refunded $${state.amount}`,
    )
    .listen('review', 'needs_review', ({ outputs }) => `${String(outputs.classify)}: sent to a reviewer`);
}

/** A model that names the category the ticket's words point to. */
const goodModel = createScriptedModel(({ prompt }) =>
  /broken|damaged/.test(prompt) ? 'category: damaged' : 'category: billing',
);
/** A worse model: it calls every ticket billing. */
const worseModel = createScriptedModel(() => 'category: billing');
/** A judge that gives 9 of 10 to a reply naming a category the ticket supports, 3 otherwise. */
const judge = createScriptedModel(({ prompt }) => {
  const damaged = /broken|damaged/.test(prompt.split('Output to judge:')[0] ?? '');
  const answer = prompt.split('Output to judge:')[1] ?? '';
  const right = damaged === answer.includes('damaged');
  return {
    text: right ? '9 names the right category' : '3 names the wrong category',
    usage: { inputTokens: 40, outputTokens: 5 },
  };
});

/** Every ticket is $50 or less: the `needs_review` route is never taken. */
export const dataset: EvalCase[] = [
  { id: 'broken-mug', inputs: { ticket: 'My mug arrived broken', amount: 12 }, expected: 'damaged' },
  { id: 'double-charge', inputs: { ticket: 'I was charged twice', amount: 30 }, expected: 'billing' },
];

/** The scorers both evaluations use. */
function scorers() {
  return {
    category: includes(),
    refunded: ({ text }: { text: string }) => text.includes('refunded'),
    judge: llmJudge({ model: judge, rubric: 'Does the reply name the right category for the ticket?' }),
  };
}

/** Evaluates the flow with the good model, then the worse one (runs kept in memory stores). */
export async function runEvals(): Promise<{ baseline: EvalReport; candidate: EvalReport }> {
  const baseline = await evaluate({ target: triageFlow(goodModel), dataset, scorers: scorers() });
  const candidate = await evaluate({ target: triageFlow(worseModel), dataset, scorers: scorers() });
  return { baseline, candidate };
}

async function main(): Promise<void> {
  const { baseline, candidate } = await runEvals();
  console.log('\n== evals: the baseline');
  console.log(formatReport(baseline));
  console.log('\n== evals: a worse model against the baseline');
  console.log(formatComparison(compareEvals(baseline, candidate)));
}

if (isMain(import.meta.url)) await main();
