/**
 * One measurement in a fresh process: build the workload, warm up (whole runs, until about 20,000
 * steps ran or 2 s passed — the same allowance for every runtime), run it once timed, check every
 * result, print one JSON line { ms, peakRssMb }.
 * Usage: tsx compare/child.ts <runtime> <workload> <n>
 */
import { loaders } from './adapters.js';
import { expected, type Workload } from './workloads.js';

const [runtime, workload, size] = process.argv.slice(2) as [string, Workload, string];
const n = Number(size);
const load = loaders[runtime];
if (load === undefined) throw new Error(`unknown runtime ${runtime}`);
const adapter = await load();
const run = await adapter.build(workload, n);
const check = (result: number) => {
  if (result !== expected(workload, n)) {
    throw new Error(`${runtime} ${workload} ${n}: got ${result}, expected ${expected(workload, n)}`);
  }
};
const warmUntil = performance.now() + 2_000;
for (let done = 0; done < 20_000 && performance.now() < warmUntil; done += n) check(await run());
const started = performance.now();
const result = await run();
const ms = performance.now() - started;
check(result);
console.log(JSON.stringify({ ms, peakRssMb: process.resourceUsage().maxRSS / 1024 }));
