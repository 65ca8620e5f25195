/**
 * Throughput of a fleet of worker processes on BullMQ (the local Redis), statecrew against raw BullMQ.
 *
 * statecrew: a parallel crew of TASKS tasks (at most 256 in flight) whose conversations go through
 * `createQueueExecutor` to 1, 2 and 4 worker processes (`bench/queue-worker.ts`, 16 jobs each).
 * Raw BullMQ, the same shape: TASKS no-op jobs, at most 256 in flight, each added with `Queue.add`
 * and awaited through one `QueueEvents` (its `completed` event), on the same workers' processes (a
 * bare BullMQ `Worker`, 16 jobs at a time). Instant agents / no-op jobs, then 50 ms ones. The fleets
 * of 1, 2 and 4 workers are all up at once, and every (fleet, contender) pair runs once a round, in
 * an order rotated each round: REPS rounds, medians with [min–max]; ratios are paired by round.
 * Also the latency of one job at a time (1 worker, instant), and each build's crew in this process.
 *
 * Each BUILD is a statecrew checkout built with `npm run build` (default: this one), or a directory
 * holding a copy of a build's `dist/`; several builds compare alternately, e.g. a worktree at an
 * earlier commit:
 *
 *   npm run build && node --import tsx bench/queue-throughput.ts [TASKS=2000] [REPS=3] [BUILD...]
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { basename, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Queue } from 'bullmq';
import { openRawBullmq } from './raw-bullmq.js';

const TASKS = Number(process.argv[2] ?? '2000');
const REPS = Number(process.argv[3] ?? '3');
const HERE = fileURLToPath(new URL('..', import.meta.url));
const BUILDS = process.argv.length > 4 ? process.argv.slice(4).map((d) => resolve(d)) : [HERE];
const WORKER = fileURLToPath(new URL('./queue-worker.ts', import.meta.url));
const IN_FLIGHT = 256;
const LATENCY_JOBS = 300;
const connection = { host: '127.0.0.1', port: 6379, maxRetriesPerRequest: null };

type Statecrew = typeof import('../src/index.js');
type StatecrewQueue = typeof import('../src/queue/index.js');
interface Build {
  label: string;
  statecrew: Statecrew;
  queue: StatecrewQueue;
}
/**
 * A build's label: its checkout's commit (`+` when its src differs from it), or the directory's name
 * when it is a copy of a build (a directory holding `dist/`, not a checkout of its own).
 */
function labelOf(dir: string): string {
  const top = execFileSync('git', ['-C', dir, 'rev-parse', '--show-toplevel']).toString().trim();
  if (resolve(top) !== resolve(dir)) return `statecrew ${basename(dir)}`;
  const sha = execFileSync('git', ['-C', dir, 'rev-parse', '--short', 'HEAD']).toString().trim();
  const dirty = execFileSync('git', ['-C', dir, 'status', '--porcelain', 'src']).toString().trim();
  return `statecrew ${sha}${dirty === '' ? '' : '+'} (${basename(dir)})`;
}
const builds: Build[] = [];
for (const dir of BUILDS) {
  const built = (href: string) => import(pathToFileURL(`${dir}/dist/${href}`).href);
  builds.push({
    label: labelOf(dir),
    statecrew: (await built('index.js')) as Statecrew,
    queue: (await built('queue/index.js')) as StatecrewQueue,
  });
}

function startWorker(queue: string, name: string, delayMs: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', WORKER], {
    env: {
      ...process.env,
      QUEUE: queue,
      NAME: name,
      DELAY_MS: String(delayMs),
      BUILDS: JSON.stringify(BUILDS),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((ready) =>
    child.stdout?.on('data', (d: Buffer) => d.toString().includes('ready') && ready(child)),
  );
}

function crewOf(build: Build, tasks: number, inFlight: number, llm: () => unknown, executor?: unknown) {
  const { Agent, Task, Crew } = build.statecrew;
  const agent = new Agent({ role: 'Worker', llm: llm as () => string });
  return new Crew({
    tasks: Array.from(
      { length: tasks },
      (_, i) => new Task({ name: `t${i}`, description: `task ${i}`, agent }),
    ),
    process: 'parallel',
    maxConcurrency: inFlight,
    ...(executor === undefined ? {} : { executor: executor as never }),
  });
}

async function seconds(run: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await run();
  return (performance.now() - started) / 1000;
}

const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const median = (xs: number[]) => sorted(xs)[Math.floor(xs.length / 2)] as number;
const spread = (xs: number[], digits = 0) =>
  `${median(xs).toFixed(digits)} [${sorted(xs)[0]?.toFixed(digits)}–${sorted(xs).at(-1)?.toFixed(digits)}]`;

type Contender = { label: string; run: (tasks: number, inFlight: number) => Promise<unknown> };

/** `workers` worker processes with `delayMs` agents, and the contenders that submit to them. */
interface Fleet {
  workers: number;
  contenders: Contender[];
  close(): Promise<void>;
}

async function openFleet(workers: number, delayMs: number): Promise<Fleet> {
  const base = `bench-${randomUUID()}`;
  const children = await Promise.all(
    Array.from({ length: workers }, (_, i) => startWorker(base, `w${i + 1}`, delayMs)),
  );
  const raw = await openRawBullmq(`${base}-raw`, connection);
  const executors = builds.map((b, i) => b.queue.createQueueExecutor({ queue: `${base}-b${i}` }));
  const contenders: Contender[] = [
    { label: 'raw BullMQ', run: (tasks, inFlight) => raw.run(tasks, inFlight) },
    ...builds.map((b, i) => ({
      label: b.label,
      run: (tasks: number, inFlight: number) =>
        crewOf(b, tasks, inFlight, () => 'unused', executors[i]).kickoff(),
    })),
  ];
  // A warm-up round: connections made, scripts loaded, code compiled.
  for (const c of contenders) await c.run(Math.min(TASKS, 500), IN_FLIGHT);
  return {
    workers,
    contenders,
    async close() {
      await Promise.all(executors.map((e) => e.close()));
      await raw.close();
      await Promise.all(
        children.map((child) => new Promise((exit) => child.once('exit', exit).kill('SIGTERM'))),
      );
      for (const name of [`${base}-raw`, ...builds.map((_, i) => `${base}-b${i}`)]) {
        const q = new Queue(name, { connection });
        await q.obliterate({ force: true });
        await q.close();
      }
    },
  };
}

/**
 * Runs every (fleet, contender) cell once per round, in an order rotated each round, so that the
 * machine's drifting load falls on all of them alike; returns each cell's figures by round.
 */
async function rounds(
  fleets: Fleet[],
  measure: (c: Contender) => Promise<number>,
  only: (f: Fleet) => boolean = () => true,
): Promise<Map<string, number[]>> {
  const cells = fleets.filter(only).flatMap((f) => f.contenders.map((c) => ({ f, c })));
  const out = new Map<string, number[]>(cells.map(({ f, c }) => [`${c.label}|${f.workers}`, []]));
  for (let rep = 0; rep < REPS; rep += 1)
    for (let k = 0; k < cells.length; k += 1) {
      const { f, c } = cells[(rep + k) % cells.length] as (typeof cells)[number];
      out.get(`${c.label}|${f.workers}`)?.push(await measure(c));
    }
  return out;
}

/** Each round's ratio of `a` to `b` (paired by round). */
const ratios = (a: number[], b: number[]) => a.map((x, i) => x / (b[i] as number));

const lines: string[] = [];
const say = (line: string) => {
  lines.push(line);
  process.stderr.write(`${line}\n`);
};
const WORKERS = [1, 2, 4];
for (const delayMs of [0, 50]) {
  const agent = delayMs === 0 ? 'instant' : '50 ms';
  const llm = delayMs === 0 ? () => 'done' : () => new Promise((r) => setTimeout(() => r('done'), delayMs));
  for (const b of builds) {
    const local: number[] = [];
    for (let rep = 0; rep < REPS; rep += 1)
      local.push(TASKS / (await seconds(() => crewOf(b, TASKS, IN_FLIGHT, llm).kickoff())));
    say(`| ${agent} | ${b.label} | in this process | ${spread(local)} | |`);
  }
  const fleets: Fleet[] = [];
  for (const workers of WORKERS) fleets.push(await openFleet(workers, delayMs));
  const rates = await rounds(fleets, async (c) => TASKS / (await seconds(() => c.run(TASKS, IN_FLIGHT))));
  const labels = (fleets[0] as Fleet).contenders.map((c) => c.label);
  for (const workers of WORKERS)
    for (const label of labels) {
      const xs = rates.get(`${label}|${workers}`) as number[];
      const vsOne = spread(ratios(xs, rates.get(`${label}|1`) as number[]), 2);
      say(
        `| ${agent} | ${label} | ${workers} worker${workers === 1 ? '' : 's'} | ${spread(xs)} | ${vsOne}× |`,
      );
    }
  if (delayMs === 0) {
    const raw = rates.get('raw BullMQ|1') as number[];
    for (const label of labels.slice(1)) {
      const xs = rates.get(`${label}|1`) as number[];
      const perJob = xs.map((x) => 1000 / x);
      say(
        `| per job, 1 worker | ${label} | ${spread(perJob, 3)} ms | ${spread(ratios(raw, xs), 2)}× raw BullMQ's |`,
      );
    }
    say(
      `| per job, 1 worker | raw BullMQ | ${spread(
        raw.map((x) => 1000 / x),
        3,
      )} ms | |`,
    );
    const latency = await rounds(
      fleets,
      async (c) => ((await seconds(() => c.run(LATENCY_JOBS, 1))) * 1000) / LATENCY_JOBS,
      (f) => f.workers === 1,
    );
    for (const label of labels)
      say(
        `| one job at a time, 1 worker | ${label} | ${spread(latency.get(`${label}|1`) as number[], 2)} ms per job | |`,
      );
  }
  for (const f of fleets) await f.close();
}
console.log(`\n${TASKS} tasks, ${IN_FLIGHT} in flight, 16 jobs per worker, medians of ${REPS} [min–max]\n`);
console.log(
  '| agent | contender | where | tasks per second | vs one worker (paired by round) |\n|---|---|---|---:|---:|',
);
for (const line of lines) console.log(line);
process.exit(0);
