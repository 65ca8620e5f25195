/**
 * Two builds of statecrew against each other and the one-actor floor, alternated in one process:
 * copy `dist/` of each commit to a directory of its own, then
 *   node --expose-gc --import tsx bench/compare-builds.ts graph|chain ROUNDS DIR_A DIR_B …
 * Each directory is a copy of `dist/` (it must sit inside this repository, so `xstate` resolves).
 * The floor asks the side-by-side stub model (`bench/compare/workloads.ts`) and runs through the
 * TypeScript loader, which slows it: read the builds against each other; their ratio to the floor
 * reads low here (`bench/floor-ratio.ts` is the fair floor). Medians of the ratios, with their
 * ranges, and each later build against the first one listed, round by round; the same for the CPU
 * time the process spent on each run, which a loaded machine's other processes do not stretch.
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
/** The CPU time this process spent (all its threads: the collector's too), in ms. */
const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};
/** Wall time and CPU time of one run: on a loaded machine the CPU time waits for no other process. */
const timed = async (run: () => Promise<unknown>) => {
  collect();
  const cpu = cpuMs();
  const started = performance.now();
  await run();
  return { wall: performance.now() - started, cpu: cpuMs() - cpu };
};
for (const [, run] of cases) await run();
const ratios = cases.map((): number[] => []);
const cpuRatios = cases.map((): number[] => []);
for (let round = 0; round < ROUNDS; round += 1) {
  const order = cases.map((_, i) => i);
  if (round % 2 === 1) order.reverse();
  const took: { wall: number; cpu: number }[] = [];
  for (const i of order) took[i] = await timed((cases[i] as [string, () => Promise<unknown>])[1]);
  const floor = took[0] as { wall: number; cpu: number };
  took.forEach((t, i) => {
    ratios[i]?.push(t.wall / floor.wall);
    cpuRatios[i]?.push(t.cpu / floor.cpu);
  });
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const spread = (xs: number[]) =>
  `${median(xs).toFixed(2)} (${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)})`;
/** Each build against the first one listed, round by round (the two ran back to back). */
const toFirst = (of: number[][], i: number) =>
  i > 1
    ? `  × the first build ${spread((of[i] as number[]).map((r, k) => r / ((of[1] as number[])[k] as number)))}`
    : '';
for (const [i, [name]] of cases.entries()) {
  console.log(
    `${mode} ${name.padEnd(24)} wall ÷ floor ${spread(ratios[i] as number[])}${toFirst(ratios, i)}`,
  );
  console.log(
    `${mode} ${''.padEnd(24)} CPU  ÷ floor ${spread(cpuRatios[i] as number[])}${toFirst(cpuRatios, i)}`,
  );
}
