/**
 * A press release written in a loop: draft, then review; after each round a judge says whether the
 * release is ready. The next round's draft reads the last review. The loop stops on YES, or after
 * `maxIterations` rounds.
 *
 * Run: npm start (after the graph example), or npx tsx examples/press-release-loop.ts
 */
import { Agent, Crew, Task } from '../src/index.js';
import { createScriptedModel } from '../src/testing.js';
import { isMain } from './main.js';

let round = 0;
const llm = createScriptedModel((request) => {
  if (request.agent === 'Copywriter') {
    round += 1;
    return request.context === ''
      ? `Draft ${round}: Acme ships a robot.`
      : `Draft ${round}, after "${request.context}"`;
  }
  return round < 3
    ? `Review ${round}: too vague, name the launch date`
    : `Review ${round}: clear, dated, quotable`;
});
// The judge reads the latest review (its context) and answers YES or NO first.
const judge = (_prompt: string, latestReview: string) =>
  latestReview.includes('clear') ? 'YES - ready to send' : 'NO - another round';

const copywriter = new Agent({ role: 'Copywriter', goal: 'announce {product}', llm });
const reviewer = new Agent({ role: 'Reviewer', goal: 'hold the release to the style guide', llm });
/** The press-release crew: draft and review, looped until the judge says YES. */
export const pressRelease = new Crew({
  tasks: [
    new Task({ name: 'draft', description: 'Draft the press release for {product}', agent: copywriter }),
    new Task({ name: 'review', description: 'Review the draft', agent: reviewer }),
  ],
  process: 'loop',
  loop: { condition: 'the release is clear, dated and quotable', judge, maxIterations: 5 },
});
async function main(): Promise<void> {
  const out = await pressRelease.kickoff({ inputs: { product: 'the Acme R2' } });

  console.log('\n== loop: draft → review, judged after each round');
  console.log(`  iterations: ${out.metadata.iterations}; condition met: ${out.metadata.conditionMet}`);
  for (const v of out.metadata.verdicts as { iteration: number; reply: string }[]) {
    console.log(`  judge after round ${v.iteration}: ${v.reply}`);
  }
  console.log(`  nodes: ${out.nodes.map((n) => n.nodeId).join(', ')}`);
  console.log(`  final output: ${out.raw}`);
}

if (isMain(import.meta.url)) await main();
