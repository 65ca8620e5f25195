/**
 * Orchestration cost of a sequential crew with an instant policy, at growing sizes.
 * Run: npm run bench  (or: npx tsx bench/sequential.ts 1000 10000)
 */
import { Agent, Crew, Task } from '../src/index.js';

const sizes = process.argv
  .slice(2)
  .map(Number)
  .filter((n) => n > 0);
const runs = sizes.length > 0 ? sizes : [1_000, 10_000];

function buildCrew(size: number): Crew {
  const agent = new Agent({ role: 'Worker', llm: (_prompt, context) => `${context.length}` });
  const tasks = Array.from(
    { length: size },
    (_, i) => new Task({ name: `t${i}`, description: `step ${i}`, agent }),
  );
  return new Crew({ tasks });
}

async function measure(size: number): Promise<{ ms: number; rssMb: number; heapMb: number }> {
  const crew = buildCrew(size);
  let peakRss = process.memoryUsage().rss;
  let peakHeap = process.memoryUsage().heapUsed;
  const sampler = setInterval(() => {
    const m = process.memoryUsage();
    peakRss = Math.max(peakRss, m.rss);
    peakHeap = Math.max(peakHeap, m.heapUsed);
  }, 5);
  const started = performance.now();
  const out = await crew.kickoff();
  const ms = performance.now() - started;
  clearInterval(sampler);
  if (out.status !== 'completed' || out.nodes.length !== size)
    throw new Error(`run of ${size} did not complete`);
  return { ms, rssMb: peakRss / 2 ** 20, heapMb: peakHeap / 2 ** 20 };
}

await measure(200); // warm-up: JIT and module loading are not orchestration
const rows: string[] = [];
const perTask: number[] = [];
for (const size of runs) {
  const { ms, rssMb, heapMb } = await measure(size);
  perTask.push((ms * 1000) / size);
  rows.push(
    `| ${size} | ${ms.toFixed(1)} | ${((ms * 1000) / size).toFixed(1)} | ${rssMb.toFixed(0)} | ${heapMb.toFixed(0)} |`,
  );
}
console.log(`sequential crew, instant policy, node ${process.version}`);
console.log('| tasks | total ms | µs per task | peak RSS MB | peak heap MB |');
console.log('|---:|---:|---:|---:|---:|');
for (const row of rows) console.log(row);
if (perTask.length >= 2) {
  const first = perTask[0] as number;
  const last = perTask[perTask.length - 1] as number;
  console.log(`per-task growth from smallest to largest: ×${(last / first).toFixed(2)}`);
}
