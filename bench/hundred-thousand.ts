/**
 * 100,000 tasks with every one in flight at once (graph root → 100,000 → join, maxConcurrency
 * 100,002), a model answering on the macrotask queue, in this fresh process:
 *   - building it: `new Task` × 100,002 (and the agent), then `new Crew({...})`, each timed apart
 *     (wall and CPU ms; one synchronous call each, so each holds the loop that long);
 *   - running it, from `crew.run()` to its result: the run's time, its longest event-loop stall and
 *     the phase it fell in (`kickoff`: the synchronous `run()`; `starting`: until the root and the
 *     100,000 have started; `settling`: until the join starts; `join`: the join and the result), the
 *     heap per in-flight task (at the moment the last task started, against the heap before the run)
 *     and the peak RSS.
 *   npx tsx bench/hundred-thousand.ts [N] [--build DIR]   statecrew (built: `npm run build` first;
 *                                                        DIR: a copy of `dist/` in this repository)
 *   npx tsx bench/hundred-thousand.ts [N] floor    the floor: one XState actor per task under a
 *                                                  supervisor machine, the same model, every task in flight
 * `bench/hundred-thousand-builds.ts` alternates builds (and the floor) run by run.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { actorFanOut } from './compare/actor-floor.js';
import { watchStalls } from './stall-probe.js';

const args = process.argv.slice(2);
const buildAt = args.indexOf('--build');
const buildDir = buildAt >= 0 ? args.splice(buildAt, 2)[1] : undefined;
const N = Number(args[0] ?? 100_000);
const answer = () => new Promise<string>((resolve) => setImmediate(() => resolve('ok')));
const peakRssMB = () => Math.round(process.resourceUsage().maxRSS / 1024);
const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

if (args[1] === 'floor') {
  const stalls = watchStalls();
  const started = performance.now();
  await actorFanOut(N, N + 2, answer);
  const ms = performance.now() - started;
  const result = { floor: true, tasks: N + 2, seconds: Number((ms / 1000).toFixed(2)) };
  console.log(
    JSON.stringify({ ...result, longestStallMs: Math.round(stalls.stop()), peakRssMB: peakRssMB() }),
  );
  process.exit(0);
}

type Api = typeof import('../src/index.js');
const { Agent, Crew, Task } =
  buildDir === undefined
    ? (await import('./built.js')).statecrew
    : ((await import(pathToFileURL(resolve(buildDir, 'index.js')).href)) as Api);

/** `make()` timed: its result, wall ms and CPU ms. */
function timed<T>(make: () => T): [T, number, number] {
  const [wall, cpu] = [performance.now(), cpuMs()];
  const made = make();
  return [made, performance.now() - wall, cpuMs() - cpu];
}

const [tasks, tasksMs, tasksCpuMs] = timed(() => {
  const worker = new Agent({ role: 'W', llm: answer });
  const root = new Task({ name: 'root', description: 'x', agent: worker });
  const middle = Array.from(
    { length: N },
    (_, i) => new Task({ name: `m${i}`, description: 'x', agent: worker, context: [root] }),
  );
  const join = new Task({ name: 'join', description: 'x', agent: worker, context: middle });
  return [root, ...middle, join];
});
const [crew, crewMs, crewCpuMs] = timed(() => new Crew({ tasks, process: 'graph', maxConcurrency: N + 2 }));

const heapBefore = process.memoryUsage().heapUsed;
let phase = 'kickoff';
const stalls = watchStalls(() => phase);
const started = performance.now();
const run = crew.run();
const kickoffMs = performance.now() - started;
phase = 'starting';
let heapInFlight = 0;
let startedCount = 0;
run.events$.subscribe((e) => {
  if (e.type !== 'node.started') return;
  startedCount += 1;
  if (startedCount === N + 1) {
    heapInFlight = process.memoryUsage().heapUsed;
    phase = 'settling';
  } else if (startedCount === N + 2) phase = 'join';
});
const out = await run.result;
const ms = performance.now() - started;
const stallMs = stalls.stop();
const round = (n: number) => Math.round(n);
console.log(
  JSON.stringify({
    build: buildDir ?? 'dist',
    tasks: out.nodes.length,
    status: out.status,
    constructionMs: round(tasksMs + crewMs),
    tasksMs: round(tasksMs),
    crewMs: round(crewMs),
    constructionCpuMs: round(tasksCpuMs + crewCpuMs),
    kickoffMs: round(kickoffMs),
    seconds: Number((ms / 1000).toFixed(2)),
    longestStallMs: round(stallMs),
    stallByPhase: stalls.byPhase(),
    heapPerInFlightTaskKB: Number(((heapInFlight - heapBefore) / N / 1024).toFixed(2)),
    peakRssMB: peakRssMB(),
  }),
);
