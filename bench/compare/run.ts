/**
 * Runs every runtime × workload × size in fresh processes, alternating the runtimes' order between
 * repetitions, and prints a Markdown table of medians, µs per step, peak RSS and the ratio to the
 * floor. A size is skipped for a runtime whose previous size, scaled up linearly, would take longer
 * than the budget.
 *
 * Usage: tsx compare/run.ts [--runtimes floor,statecrew,langgraph,mastra] [--workloads W1,W2,W3,W4]
 *                           [--sizes 100,1000,10000] [--reps 3] [--budget 120] [--json out.json]
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { loaders } from './adapters.js';
import { WORKLOADS, type Workload } from './workloads.js';

function option(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? (process.argv[at + 1] ?? fallback) : fallback;
}

const runtimes = option('runtimes', Object.keys(loaders).join(',')).split(',');
const workloads = option('workloads', WORKLOADS.join(',')).split(',') as Workload[];
const sizes = option('sizes', '100,1000,10000').split(',').map(Number);
const reps = Number(option('reps', '3'));
const budgetMs = Number(option('budget', '120')) * 1000;
const child = fileURLToPath(new URL('./child.ts', import.meta.url));

interface Cell {
  runtime: string;
  workload: Workload;
  n: number;
  ms: number[];
  peakRssMb: number[];
  skipped?: string;
  error?: string;
}

function measure(runtime: string, workload: Workload, n: number): { ms: number; peakRssMb: number } {
  const output = execFileSync(process.execPath, ['--import', 'tsx', child, runtime, workload, String(n)], {
    encoding: 'utf8',
    maxBuffer: 64 * 2 ** 20,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return JSON.parse(output.trim().split('\n').at(-1) as string);
}

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
const steps = (workload: Workload, n: number) => (workload === 'W2' ? n + 2 : n);

const cells: Cell[] = [];
for (const workload of workloads) {
  const lastMedian = new Map<string, { n: number; ms: number }>();
  for (const n of sizes) {
    const row = new Map(runtimes.map((r) => [r, { runtime: r, workload, n, ms: [], peakRssMb: [] } as Cell]));
    for (const r of runtimes) {
      const previous = lastMedian.get(r);
      const projected = previous === undefined ? 0 : (previous.ms * n) / previous.n;
      if (projected * reps > budgetMs) {
        (row.get(r) as Cell).skipped = `~${(projected / 1000).toFixed(0)} s per run projected`;
      }
    }
    for (let rep = 0; rep < reps; rep += 1) {
      const order = runtimes.map((_, i) => runtimes[(i + rep) % runtimes.length] as string);
      for (const r of order) {
        const cell = row.get(r) as Cell;
        if (cell.skipped !== undefined || cell.error !== undefined) continue;
        try {
          const { ms, peakRssMb } = measure(r, workload, n);
          cell.ms.push(ms);
          cell.peakRssMb.push(peakRssMb);
          process.stderr.write(`${workload} n=${n} ${r}: ${ms.toFixed(1)} ms\n`);
        } catch (error) {
          const stderr = (error as { stderr?: string }).stderr ?? String(error);
          cell.error = stderr.trim().split('\n').filter(Boolean).at(-1)?.slice(0, 160) ?? 'failed';
          process.stderr.write(`${workload} n=${n} ${r}: FAILED ${cell.error}\n`);
        }
      }
    }
    for (const cell of row.values()) {
      if (cell.ms.length > 0) lastMedian.set(cell.runtime, { n, ms: median(cell.ms) });
      cells.push(cell);
    }
  }
}

const cpu = cpus()[0]?.model ?? 'unknown CPU';
console.log(
  `Node ${process.version}, ${cpus().length} × ${cpu}; ${reps} fresh processes per cell, median shown.\n`,
);
console.log('| workload | N | runtime | median ms | µs per step | peak RSS MB | × floor |');
console.log('|---|---:|---|---:|---:|---:|---:|');
for (const cell of cells) {
  const head = `| ${cell.workload} | ${cell.n} | ${cell.runtime} |`;
  if (cell.skipped !== undefined || cell.error !== undefined || cell.ms.length === 0) {
    console.log(`${head} ${cell.skipped ? `skipped (${cell.skipped})` : `failed: ${cell.error}`} | | | |`);
    continue;
  }
  const ms = median(cell.ms);
  const floorCell = cells.find(
    (c) => c.runtime === 'floor' && c.workload === cell.workload && c.n === cell.n,
  );
  const ratio = floorCell && floorCell.ms.length > 0 ? (ms / median(floorCell.ms)).toFixed(0) : '–';
  const perStep = ((ms * 1000) / steps(cell.workload, cell.n)).toFixed(cell.runtime === 'floor' ? 2 : 1);
  console.log(`${head} ${ms.toFixed(1)} | ${perStep} | ${median(cell.peakRssMb).toFixed(0)} | ${ratio} |`);
}
const out = option('json', '');
if (out !== '') writeFileSync(out, `${JSON.stringify(cells, null, 2)}\n`);
