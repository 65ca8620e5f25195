/**
 * Heap held per in-flight task: a graph root → N whose N tasks all wait on their model at once (the
 * model answers only when released), heap after GC with all N waiting against the heap before the
 * run. Run: node --expose-gc --import tsx bench/in-flight-memory.ts [N]
 */
import { statecrew } from './built.js';

const { Agent, Crew, Task } = statecrew;

const N = Number(process.argv[2] ?? 20_000);
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('Run with node --expose-gc');
const waiting: (() => void)[] = [];
let hold = false;
const worker = new Agent({
  role: 'W',
  llm: (prompt) =>
    hold && !prompt.includes('ROOT')
      ? new Promise<string>((resolve) => waiting.push(() => resolve('ok')))
      : 'ok',
});
const root = new Task({ name: 'root', description: 'ROOT', agent: worker });
const middle = Array.from(
  { length: N },
  (_, i) => new Task({ name: `m${i}`, description: 'x', agent: worker, context: [root] }),
);
const crew = new Crew({ tasks: [root, ...middle], process: 'graph', maxConcurrency: N + 1 });

await crew.kickoff(); // warm-up
gc();
const before = process.memoryUsage().heapUsed;
hold = true;
const run = crew.run();
const keepAlive = setInterval(() => {}, 1_000);
while (waiting.length < N) await new Promise((resolve) => setImmediate(resolve));
gc();
const perTaskKB = (process.memoryUsage().heapUsed - before) / N / 1024;
for (const release of waiting.splice(0)) release();
const out = await run.result;
clearInterval(keepAlive);
console.log(
  JSON.stringify({ inFlight: N, status: out.status, heapPerInFlightTaskKB: Number(perTaskKB.toFixed(2)) }),
);
