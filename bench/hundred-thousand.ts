/**
 * 100,000 tasks with every one in flight at once (graph root → 100,000 → join, maxConcurrency
 * 100,002), instant model: the run's time, the longest event-loop stall, and the heap per in-flight
 * task (measured at the moment the last task started, against the heap before the run). Peak RSS:
 *   /usr/bin/time -v npx tsx bench/hundred-thousand.ts [N]
 */
import { statecrew } from './built.js';
import { watchStalls } from './stall-probe.js';

const { Agent, Crew, Task } = statecrew;

const N = Number(process.argv[2] ?? 100_000);
const worker = new Agent({
  role: 'W',
  llm: () => new Promise((resolve) => setImmediate(() => resolve('ok'))),
});
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
