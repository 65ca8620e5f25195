/**
 * Throughput of a crew whose conversations run on a fleet of worker processes through BullMQ on the
 * local Redis: tasks per second for 1, 2 and 4 workers, with an instant agent and with a 50 ms agent,
 * against the same crew run in this process. A parallel crew of TASKS tasks, at most 256 in flight;
 * each worker holds 16 jobs at once. Runs the built package (`npm run build` first):
 *
 *   node --import tsx bench/queue-throughput.ts [TASKS=2000] [REPS=3]
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { statecrew } from './built.js';

const { createQueueExecutor } = (await import(
  new URL('../dist/queue/index.js', import.meta.url).href
)) as typeof import('../src/queue/index.js');
const { Queue } = await import('bullmq');
const TASKS = Number(process.argv[2] ?? '2000');
const REPS = Number(process.argv[3] ?? '3');
const WORKER = fileURLToPath(new URL('./queue-worker.ts', import.meta.url));

function startWorker(queue: string, name: string, delayMs: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', WORKER], {
    env: { ...process.env, QUEUE: queue, NAME: name, DELAY_MS: String(delayMs) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve) =>
    child.stdout?.on('data', (d: Buffer) => d.toString().includes('ready') && resolve(child)),
  );
}

function crewOf(llm: () => string | Promise<string>, executor?: ReturnType<typeof createQueueExecutor>) {
  const agent = new statecrew.Agent({ role: 'Worker', llm });
  const tasks = Array.from(
    { length: TASKS },
    (_, i) => new statecrew.Task({ name: `t${i}`, description: `task ${i}`, agent }),
  );
  return new statecrew.Crew({
    tasks,
    process: 'parallel',
    maxConcurrency: 256,
    ...(executor === undefined ? {} : { executor }),
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

async function timed(run: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await run();
  return TASKS / ((performance.now() - started) / 1000);
}

const rows: string[] = [];
for (const delayMs of [0, 50]) {
  const llm =
    delayMs === 0 ? () => 'done' : () => new Promise<string>((r) => setTimeout(() => r('done'), delayMs));
  const local: number[] = [];
  for (let rep = 0; rep < REPS; rep += 1) local.push(await timed(() => crewOf(llm).kickoff()));
  rows.push(
    `| ${delayMs === 0 ? 'instant' : '50 ms'} agent | in this process | ${median(local).toFixed(0)} |`,
  );
  const byWorkers = new Map<number, number>();
  for (const workers of [1, 2, 4]) {
    const queue = `bench-${randomUUID()}`;
    const children = await Promise.all(
      Array.from({ length: workers }, (_, i) => startWorker(queue, `w${i + 1}`, delayMs)),
    );
    const executor = createQueueExecutor({ queue });
    const rates: number[] = [];
    for (let rep = 0; rep < REPS; rep += 1)
      rates.push(await timed(() => crewOf(() => 'unused', executor).kickoff()));
    await executor.close();
    for (const child of children) child.kill('SIGTERM');
    const q = new Queue(queue, { connection: { host: '127.0.0.1', port: 6379 } });
    await q.obliterate({ force: true });
    await q.close();
    byWorkers.set(workers, median(rates));
    const vsOne = (median(rates) / (byWorkers.get(1) as number)).toFixed(2);
    rows.push(
      `| ${delayMs === 0 ? 'instant' : '50 ms'} agent | ${workers} worker${workers === 1 ? '' : 's'} | ${median(rates).toFixed(0)} (${vsOne}× one worker) |`,
    );
    process.stderr.write(`${rows.at(-1)}\n`);
  }
  if (delayMs === 0) {
    const overheadMs = 1000 / (byWorkers.get(1) as number) - 1000 / median(local);
    rows.push(
      `| instant agent | queue overhead per task (1 worker vs in process) | ${overheadMs.toFixed(3)} ms |`,
    );
  }
}
console.log(`\n${TASKS} tasks, parallel, 256 in flight, 16 jobs per worker, median of ${REPS}\n`);
console.log('| agent | where | tasks per second |\n|---|---|---:|');
for (const row of rows) console.log(row);
process.exit(0);
