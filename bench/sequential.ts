/**
 * Orchestration cost of a sequential crew with an instant policy, 1,000 and 10,000 tasks.
 * Each size runs in a fresh process (so peak RSS belongs to that size): one warm-up run, then
 * `REPS` measured runs; the table shows the median.
 *
 * Run: npm run bench        (sizes: npx tsx bench/sequential.ts 1000 10000 50000)
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Agent, Crew, Task } from '../src/index.js';

const REPS = 5;

function buildCrew(size: number): Crew {
  const agent = new Agent({ role: 'Worker', llm: (_prompt, context) => `${context.length}` });
  const tasks = Array.from(
    { length: size },
    (_, i) => new Task({ name: `t${i}`, description: `step ${i}`, agent }),
  );
  return new Crew({ tasks });
}

async function timeOnce(size: number): Promise<number> {
  const crew = buildCrew(size);
  const started = performance.now();
  const out = await crew.kickoff();
  const ms = performance.now() - started;
  if (out.status !== 'completed' || out.nodes.length !== size)
    throw new Error(`run of ${size} did not complete`);
  return ms;
}

/** Child mode: measure one size and print a JSON line. */
async function measure(size: number): Promise<void> {
  await timeOnce(size);
  const times: number[] = [];
  for (let i = 0; i < REPS; i += 1) times.push(await timeOnce(size));
  times.sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)] as number;
  const peakRssMb = process.resourceUsage().maxRSS / 1024;
  console.log(JSON.stringify({ size, median, min: times[0], max: times.at(-1), peakRssMb }));
}

function runChild(size: number): {
  size: number;
  median: number;
  min: number;
  max: number;
  peakRssMb: number;
} {
  const script = fileURLToPath(import.meta.url);
  const output = execFileSync(process.execPath, ['--import', 'tsx', script, '--child', String(size)], {
    encoding: 'utf8',
  });
  return JSON.parse(output.trim().split('\n').at(-1) as string);
}

const args = process.argv.slice(2);
if (args[0] === '--child') {
  await measure(Number(args[1]));
} else {
  const sizes = args.map(Number).filter((n) => n > 0);
  const rows = (sizes.length > 0 ? sizes : [1_000, 10_000]).map(runChild);
  console.log(`sequential crew, instant policy, ${REPS} runs per size (median), node ${process.version}`);
  console.log('| tasks | median ms | min–max ms | µs per task | peak RSS MB |');
  console.log('|---:|---:|---:|---:|---:|');
  for (const r of rows) {
    const perTask = ((r.median * 1000) / r.size).toFixed(1);
    console.log(
      `| ${r.size} | ${r.median.toFixed(1)} | ${r.min.toFixed(0)}–${r.max.toFixed(0)} | ${perTask} | ${r.peakRssMb.toFixed(0)} |`,
    );
  }
  const first = rows[0];
  const last = rows.at(-1);
  if (first && last && last !== first) {
    const ratio = last.median / first.median;
    console.log(
      `${last.size} tasks cost ×${ratio.toFixed(2)} the time of ${first.size} (sizes ×${last.size / first.size})`,
    );
  }
}
