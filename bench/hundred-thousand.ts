/**
 * 100,000 tasks with every one in flight at once (graph root → 100,000 → join, maxConcurrency
 * 100,002), a model answering on the macrotask queue: the run's time, the longest event-loop stall,
 * the heap per in-flight task (measured at the moment the last task started, against the heap before
 * the run) and the peak RSS, in this fresh process.
 *   npx tsx bench/hundred-thousand.ts [N]          statecrew (built: `npm run build` first)
 *   npx tsx bench/hundred-thousand.ts [N] floor    the floor: one XState actor per task under a
 *                                                  supervisor machine, the same model, every task in flight
 * Alternate the two a few times and compare the times: this machine's speed drifts.
 */
import { statecrew } from './built.js';
import { actorFanOut } from './compare/actor-floor.js';
import { watchStalls } from './stall-probe.js';

const { Agent, Crew, Task } = statecrew;

const N = Number(process.argv[2] ?? 100_000);
const answer = () => new Promise<string>((resolve) => setImmediate(() => resolve('ok')));

if (process.argv[3] === 'floor') {
  const stalls = watchStalls();
  const started = performance.now();
  await actorFanOut(N, N + 2, answer);
  const ms = performance.now() - started;
  console.log(
    JSON.stringify({
      floor: true,
      tasks: N + 2,
      seconds: Number((ms / 1000).toFixed(2)),
      longestStallMs: Math.round(stalls.stop()),
      peakRssMB: Math.round(process.resourceUsage().maxRSS / 1024),
    }),
  );
  process.exit(0);
}

const worker = new Agent({ role: 'W', llm: answer });
const root = new Task({ name: 'root', description: 'x', agent: worker });
const middle = Array.from(
  { length: N },
  (_, i) => new Task({ name: `m${i}`, description: 'x', agent: worker, context: [root] }),
);
const join = new Task({ name: 'join', description: 'x', agent: worker, context: middle });
const crew = new Crew({ tasks: [root, ...middle, join], process: 'graph', maxConcurrency: N + 2 });

const heapBefore = process.memoryUsage().heapUsed;
const stalls = watchStalls();
const started = performance.now();
const run = crew.run();
let heapInFlight = 0;
let startedCount = 0;
run.events$.subscribe((e) => {
  if (e.type === 'node.started' && ++startedCount === N + 1) heapInFlight = process.memoryUsage().heapUsed;
});
const out = await run.result;
const ms = performance.now() - started;
const stallMs = stalls.stop();
console.log(
  JSON.stringify({
    tasks: out.nodes.length,
    status: out.status,
    seconds: Number((ms / 1000).toFixed(2)),
    longestStallMs: Math.round(stallMs),
    heapPerInFlightTaskKB: Number(((heapInFlight - heapBefore) / N / 1024).toFixed(2)),
    peakRssMB: Math.round(process.resourceUsage().maxRSS / 1024),
  }),
);
