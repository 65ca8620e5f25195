/**
 * Two builds of statecrew against each other and the one-actor floor, alternated in one process:
 * copy `dist/` of each commit to a directory of its own, then
 *   node --expose-gc --import tsx bench/compare-builds.ts graph|chain ROUNDS DIR_A DIR_B …
 * Each directory is a copy of `dist/` (it must sit inside this repository, so `xstate` resolves).
 * The floor asks the side-by-side stub model (`bench/compare/workloads.ts`) and runs through the
 * TypeScript loader, which slows it: read the builds against each other; their ratio to the floor
 * reads low here (`bench/floor-ratio.ts` is the fair floor). Medians of the ratios.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { actorChain, actorFanOut } from './compare/actor-floor.js';

const [mode = 'graph', roundsArg = '11', ...dirs] = process.argv.slice(2);
const N = 10_000;
const ROUNDS = Number(roundsArg);
type Api = typeof import('../src/index.js');

async function build(dir: string): Promise<() => Promise<unknown>> {
  const api = (await import(pathToFileURL(resolve(dir, 'index.js')).href)) as Api;
  const worker = new api.Agent({ role: 'W', llm: async (_p, context) => `${context}.` });
  const { Crew, Task } = api;
  if (mode === 'chain') {
    const crew = new Crew({
      tasks: Array.from(
        { length: N },
        (_, i) => new Task({ name: `t${i}`, description: 'x', agent: worker }),
      ),
    });
    return () => crew.kickoff();
  }
  const root = new Task({ name: 'root', description: 'x', agent: worker });
  const middle = Array.from(
    { length: N },
    (_, i) => new Task({ name: `m${i}`, description: 'x', agent: worker, context: [root] }),
  );
  const join = new Task({ name: 'join', description: 'x', agent: worker, context: middle });
  const crew = new Crew({ tasks: [root, ...middle, join], process: 'graph', maxConcurrency: 64 });
  return () => crew.kickoff();
}

const cases: [string, () => Promise<unknown>][] = [
  ['floor', mode === 'chain' ? () => actorChain(N) : () => actorFanOut(N, 64)],
];
for (const dir of dirs) cases.push([dir, await build(dir)]);
const collect = (globalThis as { gc?: () => void }).gc ?? (() => {});
const timed = async (run: () => Promise<unknown>) => {
  collect();
  const started = performance.now();
  await run();
  return performance.now() - started;
};
for (const [, run] of cases) await run();
const ratios = cases.map((): number[] => []);
for (let round = 0; round < ROUNDS; round += 1) {
  const order = cases.map((_, i) => i);
  if (round % 2 === 1) order.reverse();
  const took: number[] = [];
  for (const i of order) took[i] = await timed((cases[i] as [string, () => Promise<unknown>])[1]);
  took.forEach((t, i) => {
    ratios[i]?.push(t / (took[0] as number));
  });
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
for (const [i, [name]] of cases.entries()) {
  console.log(`${mode} ${name.padEnd(24)} ratio to the floor ${median(ratios[i] as number[]).toFixed(2)}`);
}
