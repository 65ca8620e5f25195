/**
 * Orchestration cost per task (or flow step) with an instant policy, at 1,000 and 10,000, for each workload:
 *   sequential     a sequential crew of N tasks
 *   graph-chain    a graph of N tasks, each reading the one before
 *   graph-fanout   a graph: 1 start → N parallel tasks → 1 join (default maxConcurrency 8)
 *   parallel       a parallel crew of N tasks (default maxConcurrency 8)
 *   flow-chain     a flow of N steps, each listening to the one before
 *   flow-fanout    a flow of 1 start step and N listeners on it (one round of N concurrent steps)
 * Each workload × size runs in a fresh process (peak RSS belongs to it): warm-up runs over about
 * 20,000 nodes, then REPS measured runs; the table shows the median.
 *
 * Run: npm run bench:statecrew            (all workloads, 1,000 and 10,000)
 *      npx tsx bench/orchestration.ts graph-fanout 1000 10000 100000
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Agent, Crew, createFlow, Task } from '../src/index.js';

const REPS = 5;
const WORKLOADS = [
  'sequential',
  'graph-chain',
  'graph-fanout',
  'parallel',
  'flow-chain',
  'flow-fanout',
] as const;
type Workload = (typeof WORKLOADS)[number];

/** A workload ready to run: how to run it once, and how many nodes a complete run settles. */
interface Built {
  run(): Promise<{ complete: boolean; nodes: number }>;
  nodes: number;
}

const crewRun = (crew: Crew, nodes: number): Built => ({
  nodes,
  run: async () => {
    const out = await crew.kickoff();
    return { complete: out.status === 'completed', nodes: out.nodes.length };
  },
});

function buildFlow(workload: 'flow-chain' | 'flow-fanout', size: number): Built {
  const flow = createFlow({ name: workload, initialState: { n: 0 } }).start('s0', () => 0);
  for (let i = 1; i < size; i += 1) {
    flow.listen(`s${i}`, workload === 'flow-chain' ? `s${i - 1}` : 's0', ({ state }) => {
      state.n += 1;
      return i;
    });
  }
  return {
    nodes: size,
    run: async () => {
      const out = await flow.kickoff();
      return { complete: out.status === 'completed', nodes: out.trail.length };
    },
  };
}

function build(workload: Workload, size: number): Built {
  if (workload === 'flow-chain' || workload === 'flow-fanout') return buildFlow(workload, size);
  const agent = new Agent({ role: 'Worker', llm: (_prompt, context) => `${context.length}` });
  const task = (i: number) => new Task({ name: `t${i}`, description: `step ${i}`, agent });
  const tasks = Array.from({ length: size }, (_, i) => task(i));
  switch (workload) {
    case 'sequential':
      return crewRun(new Crew({ tasks }), size);
    case 'parallel':
      return crewRun(new Crew({ tasks, process: 'parallel' }), size);
    case 'graph-chain':
      tasks.forEach((t, i) => {
        t.context = i === 0 ? undefined : [tasks[i - 1] as Task];
      });
      return crewRun(new Crew({ tasks, process: 'graph' }), size);
    case 'graph-fanout': {
      const start = new Task({ name: 'start', description: 'start', agent });
      for (const t of tasks) t.context = [start];
      const join = new Task({ name: 'join', description: 'join', agent, context: tasks });
      return crewRun(new Crew({ tasks: [start, ...tasks, join], process: 'graph' }), size + 2);
    }
  }
}

async function timeOnce(workload: Workload, size: number): Promise<number> {
  const built = build(workload, size);
  const started = performance.now();
  const { complete, nodes } = await built.run();
  const ms = performance.now() - started;
  if (!complete || nodes !== built.nodes) throw new Error(`${workload} ${size} did not complete`);
  return ms;
}

interface Row {
  workload: Workload;
  size: number;
  median: number;
  min: number;
  max: number;
  peakRssMb: number;
}

async function measure(workload: Workload, size: number): Promise<void> {
  // Warm up on about 20,000 nodes whatever the size, so small sizes are not measured on cold code.
  for (let done = 0; done < Math.max(size, 20_000); done += size) await timeOnce(workload, size);
  const times: number[] = [];
  for (let i = 0; i < REPS; i += 1) times.push(await timeOnce(workload, size));
  times.sort((a, b) => a - b);
  const row: Row = {
    workload,
    size,
    median: times[Math.floor(times.length / 2)] as number,
    min: times[0] as number,
    max: times.at(-1) as number,
    peakRssMb: process.resourceUsage().maxRSS / 1024,
  };
  console.log(JSON.stringify(row));
}

function runChild(workload: Workload, size: number): Row {
  const script = fileURLToPath(import.meta.url);
  const output = execFileSync(
    process.execPath,
    ['--import', 'tsx', script, '--child', workload, String(size)],
    {
      encoding: 'utf8',
    },
  );
  return JSON.parse(output.trim().split('\n').at(-1) as string);
}

const args = process.argv.slice(2);
if (args[0] === '--child') {
  await measure(args[1] as Workload, Number(args[2]));
} else {
  const chosen = args.filter((a): a is Workload => (WORKLOADS as readonly string[]).includes(a));
  const sizes = args.map(Number).filter((n) => n > 0);
  const rows: Row[] = [];
  for (const workload of chosen.length > 0 ? chosen : WORKLOADS) {
    for (const size of sizes.length > 0 ? sizes : [1_000, 10_000]) rows.push(runChild(workload, size));
  }
  console.log(`instant policy, ${REPS} runs per row (median), node ${process.version}`);
  console.log('| workload | tasks | median ms | min–max ms | µs per task | peak RSS MB |');
  console.log('|---|---:|---:|---:|---:|---:|');
  for (const r of rows) {
    const perTask = ((r.median * 1000) / r.size).toFixed(1);
    const range = `${r.min.toFixed(0)}–${r.max.toFixed(0)}`;
    console.log(
      `| ${r.workload} | ${r.size} | ${r.median.toFixed(1)} | ${range} | ${perTask} | ${r.peakRssMb.toFixed(0)} |`,
    );
  }
  for (const workload of new Set(rows.map((r) => r.workload))) {
    const own = rows.filter((r) => r.workload === workload);
    const first = own[0];
    const last = own.at(-1);
    if (first && last && first !== last) {
      const ratio = last.median / first.median;
      console.log(`${workload}: ${last.size} tasks cost ×${ratio.toFixed(2)} the time of ${first.size}`);
    }
  }
}
