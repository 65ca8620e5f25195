/**
 * statecrew's per-task cost against the floor of one XState actor per task run under a supervisor
 * machine (bench/compare/actor-floor.ts), and where the difference comes from: the floor with each
 * part of statecrew's actor layout added on bare XState (bench/compare/actor-layouts.ts: an agent
 * actor that runs the work; completion reported to the supervisor, which stops the run), then
 * statecrew itself. Every case asks the same instant model; they alternate run by run in this one
 * process (the order reversed every other round); medians of the ratios to the floor, of wall time
 * and of the CPU time the process spent (which a loaded machine's other processes do not stretch).
 * Two more rungs beside statecrew's machine: the leanest machine found that keeps its lifecycle
 * contract, and that machine without its reports (bench/compare/lean-lifecycle.ts).
 * Workloads: a sequential chain of N tasks; a graph root → N → join with maxConcurrency 64.
 * Run: npm run build && node --expose-gc --import tsx bench/floor-ratio.ts [N] [rounds]
 * (without --expose-gc: no collection between runs, and noisier ratios)
 */
import { startedLifecycleMachine as lifecycle, statecrew } from './built.js';
import { actorFanOut, runActors } from './compare/actor-floor.js';
import { layoutFanOut, runLayout } from './compare/actor-layouts.js';

const { Agent, Crew, Task } = statecrew;

const N = Number(process.argv[2] ?? 10_000);
const ROUNDS = Number(process.argv[3] ?? 11);
const CONCURRENCY = 64;
const instant = async (input: string) => `${input}.`;

const worker = new Agent({ role: 'W', llm: (_prompt, context) => instant(context) });
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
const chainCrew = new Crew({
  tasks: Array.from({ length: N }, (_, i) => new Task({ name: `t${i}`, description: 'x', agent: worker })),
});
const kickoff = (crew: InstanceType<typeof Crew>) => async () => {
  const out = await crew.kickoff();
  if (out.status !== 'completed') throw new Error(out.status);
};

const collect = (globalThis as { gc?: () => void }).gc ?? (() => {});
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

/** The CPU time this process spent (all its threads: the collector's too), in ms. */
function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/** Wall and CPU time of one run: on a loaded machine the CPU time waits for no other process. */
async function timed(run: () => Promise<void>): Promise<{ wall: number; cpu: number }> {
  collect();
  const cpu = cpuMs();
  const started = performance.now();
  await run();
  return { wall: performance.now() - started, cpu: cpuMs() - cpu };
}

const spread = (rs: number[]) =>
  `${median(rs).toFixed(2)} (${Math.min(...rs).toFixed(2)}–${Math.max(...rs).toFixed(2)})`;

/**
 * Runs every case once per round (the first is the floor) and prints each one's median wall time per
 * task and median ratios to the floor, of wall time and of CPU time, with their ranges.
 */
async function ladder(title: string, tasks: number, cases: [string, () => Promise<void>][]) {
  for (const [, run] of cases) await run();
  const ms = cases.map((): number[] => []);
  const ratios = cases.map((): number[] => []);
  const cpuRatios = cases.map((): number[] => []);
  for (let round = 0; round < ROUNDS; round += 1) {
    const order = cases.map((_, i) => i);
    if (round % 2 === 1) order.reverse();
    const took: { wall: number; cpu: number }[] = [];
    for (const i of order) took[i] = await timed((cases[i] as [string, () => Promise<void>])[1]);
    const floor = took[0] as { wall: number; cpu: number };
    took.forEach((t, i) => {
      ms[i]?.push(t.wall);
      ratios[i]?.push(t.wall / floor.wall);
      cpuRatios[i]?.push(t.cpu / floor.cpu);
    });
  }
  console.log(title);
  cases.forEach(([name], i) => {
    const us = ((median(ms[i] as number[]) * 1000) / tasks).toFixed(1);
    const wall = spread(ratios[i] as number[]);
    console.log(
      `  ${name.padEnd(44)} ${us.padStart(6)} µs/task  wall ${wall}  CPU ${spread(cpuRatios[i] as number[])}`,
    );
  });
}

console.log(`node ${process.version}, N = ${N}, ${ROUNDS} rounds, medians`);
await ladder(`graph root → ${N} → join, ${CONCURRENCY} at once`, N + 2, [
  ['floor: one actor per task', () => actorFanOut(N, CONCURRENCY, instant)],
  ['+ agent actor runs the work', () => layoutFanOut('agent', N, CONCURRENCY, instant)],
  ['+ NODE.COMPLETED, supervisor stops the run', () => layoutFanOut('reported', N, CONCURRENCY, instant)],
  [
    '+ statecrew lifecycle machine, no runtime',
    () => layoutFanOut('lifecycle', N, CONCURRENCY, instant, lifecycle),
  ],
  ['+ lean lifecycle machine (same contract)', () => layoutFanOut('lean', N, CONCURRENCY, instant)],
  ['+ lean lifecycle machine, no reports', () => layoutFanOut('unreported', N, CONCURRENCY, instant)],
  ['statecrew graph crew', kickoff(graphCrew)],
]);
await ladder(`sequential chain of ${N}`, N, [
  ['floor: one actor per task', () => runActors(N, 1, instant)],
  ['+ agent actor runs the work', () => runLayout('agent', N, 1, instant)],
  ['+ NODE.COMPLETED, supervisor stops the run', () => runLayout('reported', N, 1, instant)],
  ['+ statecrew lifecycle machine, no runtime', () => runLayout('lifecycle', N, 1, instant, lifecycle)],
  ['+ lean lifecycle machine (same contract)', () => runLayout('lean', N, 1, instant)],
  ['+ lean lifecycle machine, no reports', () => runLayout('unreported', N, 1, instant)],
  ['statecrew sequential crew', kickoff(chainCrew)],
]);
