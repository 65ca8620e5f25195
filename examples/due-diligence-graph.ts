/**
 * Due diligence as a graph: a brief fans out to three analysts who work at once, and a partner
 * synthesizes their findings as soon as all three are in. The graph comes from each task's
 * `context` list; the order of the task list does not matter.
 *
 * Run: npm start (after the research crew), or npx tsx examples/due-diligence-graph.ts
 */
import { Agent, Crew, Task } from '../src/index.js';
import { createScriptedModel } from '../src/testing.js';
import { isMain } from './main.js';

const llm = createScriptedModel((request) => {
  const task = request.prompt.split('\nTask: ')[1]?.split('\n')[0] ?? '';
  const sources = request.context === '' ? 0 : request.context.split('\n').length;
  return `[${request.agent}] ${task}${sources > 0 ? ` — from ${sources} finding(s)` : ''}`;
});

const analyst = (role: string, goal: string) => new Agent({ role, goal, llm });
const partner = new Agent({ role: 'Partner', goal: 'decide whether to invest in {company}', llm });

const brief = new Task({ name: 'brief', description: 'Frame the questions about {company}', agent: partner });
const financials = new Task({
  name: 'financials',
  description: 'Review the financials of {company}',
  agent: analyst('Financial analyst', 'judge the numbers'),
  context: [brief],
});
const legal = new Task({
  name: 'legal',
  description: 'Check contracts and litigation of {company}',
  agent: analyst('Legal analyst', 'find legal risk'),
  context: [brief],
});
const market = new Task({
  name: 'market',
  description: 'Size the market of {company}',
  agent: analyst('Market analyst', 'size the opportunity'),
  context: [brief],
});
const memo = new Task({
  name: 'memo',
  description: 'Write the investment memo on {company}',
  expectedOutput: 'a recommendation',
  agent: partner,
  context: [financials, legal, market],
});

/** The due-diligence crew, listed out of order on purpose: the graph, not the list, decides what runs when. */
export const dueDiligence = new Crew({
  tasks: [memo, market, legal, financials, brief],
  process: 'graph',
  maxConcurrency: 3,
});

async function main(): Promise<void> {
  const run = dueDiligence.run({ inputs: { company: 'Acme Robotics' } });
  const order: string[] = [];
  run.events$.subscribe((e) => {
    if (e.type === 'node.started') order.push(`start ${e.nodeId}`);
    if (e.type === 'node.completed') order.push(`done ${e.nodeId}`);
  });
  const out = await run.result;

  console.log('\n== graph: brief → {financials, legal, market} → memo');
  console.log(
    `  status: ${out.status}; leaves: ${out.metadata.leaves.join(', ')}; model calls in flight at most: ${llm.peakInFlight}`,
  );
  console.log(`  order: ${order.join(', ')}`);
  console.log(
    `  memo context: ${JSON.stringify(llm.calls.find((c) => c.prompt.includes('investment memo'))?.context)}`,
  );
  console.log(`  final output: ${out.raw}`);
}

if (isMain(import.meta.url)) await main();
