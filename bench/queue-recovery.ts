/**
 * Recovery of a fleet from a killed worker: a graph crew of TASKS tasks (a root, TASKS − 2 that read
 * it, a join that reads them all) whose conversations go through BullMQ on the local Redis to two
 * worker processes (`bench/queue-recovery-worker.ts`, 8 jobs each, every answer after DELAY_MS). Each run
 * starts two fresh workers; a killed run sends SIGKILL to one of them once 30% of the tasks completed.
 * Unkilled and killed runs alternate, REPS of each, for every lock/stalled-check setting: BullMQ's
 * own defaults (30 s / 30 s) and `createWorker`'s. Runs the built package (`npm run build` first):
 *
 *   node --import tsx bench/queue-recovery.ts [TASKS=200] [REPS=5] [DELAY_MS=500] [SETTINGS=30000/30000,default]
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { statecrew } from './built.js';

const { createQueueExecutor } = (await import(
  new URL('../dist/queue/index.js', import.meta.url).href
)) as typeof import('../src/queue/index.js');
const { Queue, QueueEvents } = await import('bullmq');
const TASKS = Number(process.argv[2] ?? '200');
const REPS = Number(process.argv[3] ?? '5');
const DELAY_MS = Number(process.argv[4] ?? '500');
const SETTINGS = (process.argv[5] ?? '30000/30000,default').split(',');
const KILL_AT = Math.round(TASKS * 0.3);
const WORKER = fileURLToPath(new URL('./queue-recovery-worker.ts', import.meta.url));
const redis = { host: '127.0.0.1', port: 6379 };

/** A worker process on `queue` with `setting` (`<lock>/<stalled>` in ms, or `default`); resolves once ready. */
function startWorker(queue: string, name: string, setting: string): Promise<ChildProcess> {
  const [lock, stalled] = setting.split('/');
  const tuning = setting === 'default' ? {} : { LOCK_MS: lock, STALLED_MS: stalled };
  const child = spawn(process.execPath, ['--import', 'tsx', WORKER], {
    env: {
      ...process.env,
      QUEUE: queue,
      NAME: name,
      DELAY_MS: String(DELAY_MS),
      CONCURRENCY: '8',
      ...tuning,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    child.stdout?.on('data', (d: Buffer) => d.toString().includes('ready') && resolve(child));
    child.on('exit', (code) => reject(new Error(`worker ${name} exited with ${code} before it was ready`)));
  });
}

/** The graph crew, its conversations sent through `executor`. */
function graphCrew(executor: ReturnType<typeof createQueueExecutor>) {
  const agent = new statecrew.Agent({ role: 'Worker', llm: () => 'unused', retryDelayMs: 0 });
  const root = new statecrew.Task({ name: 'root', description: 'frame it', agent });
  const parts = Array.from(
    { length: TASKS - 2 },
    (_, i) => new statecrew.Task({ name: `part-${i}`, description: `part ${i}`, agent, context: [root] }),
  );
  const join = new statecrew.Task({ name: 'join', description: 'merge', agent, context: parts });
  return new statecrew.Crew({
    tasks: [root, ...parts, join],
    process: 'graph',
    maxConcurrency: 64,
    executor,
  });
}

/** One run on two fresh workers: its time in ms, and with a kill, from the kill to the first stalled job taken back. */
async function once(setting: string, kill: boolean): Promise<{ ms: number; stalledAfterMs?: number }> {
  const queue = `bench-recovery-${randomUUID()}`;
  const workers = await Promise.all([startWorker(queue, 'w1', setting), startWorker(queue, 'w2', setting)]);
  const doomed = workers[1];
  const events = new QueueEvents(queue, { connection: redis });
  await events.waitUntilReady();
  const executor = createQueueExecutor({ queue });
  let killedAt: number | undefined;
  let stalledAt: number | undefined;
  events.on('stalled', () => {
    stalledAt ??= performance.now();
  });
  const started = performance.now();
  const run = graphCrew(executor).run();
  let completed = 0;
  run.events$.subscribe((e) => {
    if (e.type !== 'node.completed') return;
    completed += 1;
    if (kill && completed === KILL_AT) {
      killedAt = performance.now();
      doomed?.kill('SIGKILL');
    }
  });
  const out = await run.result;
  const ms = performance.now() - started;
  const lost =
    out.status !== 'completed' || out.nodes.some((n) => n.attempts !== 1 || n.status !== 'completed');
  if (lost) process.stderr.write(`  run ${out.status}: a task failed or was attempted again\n`);
  await Promise.all([executor.close(), events.close()]);
  await cleanUp(queue, workers);
  if (killedAt === undefined || stalledAt === undefined) return { ms };
  return { ms, stalledAfterMs: stalledAt - killedAt };
}

/** Stops the workers and removes the queue's keys. */
async function cleanUp(queue: string, workers: ChildProcess[]): Promise<void> {
  const ended = workers.map((child) =>
    child.exitCode === null && child.signalCode === null
      ? new Promise((r) => child.on('exit', r))
      : undefined,
  );
  for (const child of workers) child.kill('SIGKILL');
  await Promise.all(ended);
  const q = new Queue(queue, { connection: redis });
  await q.obliterate({ force: true });
  await q.close();
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const seconds = (ms: number) => (ms / 1000).toFixed(1);
const spread = (xs: number[]) =>
  `${seconds(median(xs))} s (${seconds(Math.min(...xs))}–${seconds(Math.max(...xs))})`;

const rows: string[] = [];
for (const setting of SETTINGS) {
  const unkilled: number[] = [];
  const killed: number[] = [];
  const stalledAfter: number[] = [];
  for (let rep = 0; rep < REPS; rep += 1) {
    unkilled.push((await once(setting, false)).ms);
    const k = await once(setting, true);
    killed.push(k.ms);
    if (k.stalledAfterMs !== undefined) stalledAfter.push(k.stalledAfterMs);
    process.stderr.write(
      `${setting} rep ${rep + 1}: unkilled ${seconds(unkilled.at(-1) as number)} s, killed ${seconds(k.ms)} s\n`,
    );
  }
  const label = setting === 'default' ? 'createWorker defaults' : `${setting.replace('/', ' / ')} ms`;
  const ratio = (median(killed) / median(unkilled)).toFixed(2);
  const taken = stalledAfter.length === 0 ? '–' : spread(stalledAfter);
  rows.push(`| ${label} | ${spread(unkilled)} | ${spread(killed)} | ${ratio}× | ${taken} |`);
}
console.log(
  `\n${TASKS}-task graph, 2 workers × 8 jobs, ${DELAY_MS} ms per answer, one worker SIGKILLed at ${KILL_AT} completions; median (min–max) of ${REPS}\n`,
);
console.log(
  '| lock / stalled check | unkilled | one worker killed | killed ÷ unkilled | kill → first job taken back |',
);
console.log('|---|---:|---:|---:|---:|');
for (const row of rows) console.log(row);
process.exit(0);
