/**
 * statecrew's per-task cost against the floor of one XState actor per task run under a supervisor
 * machine, alternated run by run in this one process:
 *   floor        one XState actor per task under a supervisor machine (bench/compare/actor-floor.ts)
 *   statecrew    a Crew doing the same workload with an instant policy
 * Workloads: a sequential chain of N tasks; a graph root → N → join with maxConcurrency 64.
 * Run: node --expose-gc --import tsx bench/floor-ratio.ts [N] [pairs]   (without --expose-gc: no collection
 * between runs, and noisier ratios)
 */
import { statecrew } from './built.js';
import { actorChain, actorFanOut } from './compare/actor-floor.js';

const { Agent, Crew, Task } = statecrew;

const N = Number(process.argv[2] ?? 10_000);
const PAIRS = Number(process.argv[3] ?? 7);
const CONCURRENCY = 64;
const instant = async (input: string) => `${input}.`;

const floorChain = () => actorChain(N);
const floorGraph = () => actorFanOut(N, CONCURRENCY);

const worker = new Agent({ role: 'W', llm: (_prompt, context) => instant(context) });
const chainCrew = new Crew({
  tasks: Array.from({ length: N }, (_, i) => new Task({ name: `t${i}`, description: 'x', agent: worker })),
});
const root = new Task({ name: 'root', description: 'x', agent: worker });
const middle = Array.from(
  { length: N },
  (_, i) => new Task({ name: `m${i}`, description: 'x', agent: worker, context: [root] }),
);
const graphCrew = new Crew({
  tasks: [root, ...middle, new Task({ name: 'join', description: 'x', agent: worker, context: middle })],
  process: 'graph',
  maxConcurrency: CONCURRENCY,
});
const crewRun = (crew: InstanceType<typeof Crew>) => async () => {
  const out = await crew.kickoff();
  if (out.status !== 'completed') throw new Error(out.status);
};

/** With `--expose-gc`, each run starts from a collected heap, so no case pays for another's garbage. */
const collect = (globalThis as { gc?: () => void }).gc ?? (() => {});

async function timed(run: () => Promise<void>): Promise<number> {
  collect();
  const started = performance.now();
  await run();
  return performance.now() - started;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

async function compare(name: string, tasks: number, floor: () => Promise<void>, crew: () => Promise<void>) {
  for (let i = 0; i < 2; i += 1) {
    await floor();
    await crew();
  }
  const floorMs: number[] = [];
  const crewMs: number[] = [];
  const ratios: number[] = [];
  for (let p = 0; p < PAIRS; p += 1) {
    const [a, b] = p % 2 === 0 ? [floor, crew] : [crew, floor];
    const first = await timed(a);
    const second = await timed(b);
    const [f, c] = p % 2 === 0 ? [first, second] : [second, first];
    floorMs.push(f);
    crewMs.push(c);
    ratios.push(c / f);
    if (process.env.BENCH_VERBOSE)
      console.log(
        `  pair ${p} ${p % 2 === 0 ? 'floor first' : 'statecrew first'}: floor ${f.toFixed(0)} ms, statecrew ${c.toFixed(0)} ms`,
      );
  }
  const us = (ms: number) => ((ms * 1000) / tasks).toFixed(1);
  console.log(
    `${name.padEnd(34)} floor ${us(median(floorMs))} µs/task  statecrew ${us(median(crewMs))} µs/task  ratio ${median(ratios).toFixed(2)} (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})`,
  );
}

console.log(`node ${process.version}, N = ${N}, ${PAIRS} alternated pairs, medians`);
await compare(`sequential chain of ${N}`, N, floorChain, crewRun(chainCrew));
await compare(`graph root → ${N} → join, 64 at once`, N + 2, floorGraph, crewRun(graphCrew));
