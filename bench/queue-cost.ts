/**
 * Where a queued job's cost goes, in the caller and in Redis: a caller submits TASKS instant jobs
 * (256 in flight, after a warm-up of 2,000) to one worker process (`bench/queue-worker.ts`), raw
 * BullMQ (`Queue.add` and one `QueueEvents`) and then each statecrew BUILD (a parallel crew through
 * `createQueueExecutor`). Prints, per job: the caller's CPU (`process.cpuUsage`), its socket writes and bytes written,
 * and the Redis commands (`INFO commandstats`, reset before each; the warm-up counts too, so they are
 * divided by all the jobs). Redis must serve nothing else meanwhile. Each contender runs in its own
 * process (a fresh heap), ROUNDS times in turn:
 *
 *   npm run build && node --import tsx bench/queue-cost.ts [TASKS=10000] [ROUNDS=3] [BUILD...]
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { basename, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { openRawBullmq } from './raw-bullmq.js';

const connection = { host: '127.0.0.1', port: 6379, maxRetriesPerRequest: null };
const WARM_UP = 2000;
const IN_FLIGHT = 256;
/** `PROFILE=<dir>`: every process (the caller's contenders and the worker) writes a CPU profile there. */
const PROFILED =
  process.env.PROFILE === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${process.env.PROFILE}`];

/** One contender in this process: `ROLE` raw or a build's directory; prints its figures as JSON. */
async function contend(role: string, queue: string, tasks: number): Promise<void> {
  let run: (n: number) => Promise<unknown>;
  let close: () => Promise<unknown>;
  if (role === 'raw') {
    const raw = await openRawBullmq(`${queue}-raw`, connection);
    run = (n) => raw.run(n, IN_FLIGHT);
    close = raw.close;
  } else {
    const [dir, index] = role.split('#') as [string, string];
    const built = (href: string) => import(pathToFileURL(`${dir}/dist/${href}`).href);
    const s = (await built('index.js')) as typeof import('../src/index.js');
    const { createQueueExecutor } = (await built('queue/index.js')) as typeof import('../src/queue/index.js');
    const executor = createQueueExecutor({ queue: `${queue}-b${index}` });
    const agent = new s.Agent({ role: 'Worker', llm: () => 'unused' });
    run = (n) =>
      new s.Crew({
        tasks: Array.from(
          { length: n },
          (_, i) => new s.Task({ name: `t${i}`, description: `task ${i}`, agent }),
        ),
        process: 'parallel',
        maxConcurrency: IN_FLIGHT,
        executor,
      }).kickoff();
    close = () => executor.close();
  }
  await run(WARM_UP);
  const net = await import('node:net');
  let writes = 0;
  let bytes = 0;
  const write = net.Socket.prototype.write;
  net.Socket.prototype.write = function (this: unknown, ...args: unknown[]) {
    writes += 1;
    const chunk = args[0];
    bytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : (chunk as Uint8Array).byteLength;
    return (write as (...a: unknown[]) => boolean).apply(this, args);
  } as typeof write;
  const cpu = process.cpuUsage();
  const started = performance.now();
  await run(tasks);
  const used = process.cpuUsage(cpu);
  const seconds = (performance.now() - started) / 1000;
  net.Socket.prototype.write = write;
  await close();
  const cpuUs = (used.user + used.system) / tasks;
  console.log(
    JSON.stringify({ perSecond: tasks / seconds, cpuUs, writes: writes / tasks, bytes: bytes / tasks }),
  );
}

async function commandsPerJob(redis: Redis, jobs: number): Promise<string> {
  const stats = await redis.info('commandstats');
  const count = (name: string) => Number(new RegExp(`cmdstat_${name}:calls=(\\d+)`).exec(stats)?.[1] ?? 0);
  return ['evalsha', 'xadd', 'xread'].map((c) => `${(count(c) / jobs).toFixed(2)}`).join(' | ');
}

async function main(): Promise<void> {
  const tasks = Number(process.argv[2] ?? '10000');
  const rounds = Number(process.argv[3] ?? '3');
  const here = fileURLToPath(new URL('..', import.meta.url));
  const builds = process.argv.length > 4 ? process.argv.slice(4).map((d) => resolve(d)) : [here];
  const queue = `bench-${randomUUID()}`;
  const worker = spawn(
    process.execPath,
    [...PROFILED, '--import', 'tsx', fileURLToPath(new URL('./queue-worker.ts', import.meta.url))],
    {
      env: { ...process.env, QUEUE: queue, NAME: 'w1', BUILDS: JSON.stringify(builds) },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  await new Promise((ready) =>
    worker.stdout?.on('data', (d: Buffer) => d.toString().includes('ready') && ready(undefined)),
  );
  const redis = new Redis(connection);
  // A checkout by its commit; a copy of a build (a directory holding dist/) by its name.
  const label = (dir: string) => {
    const top = execFileSync('git', ['-C', dir, 'rev-parse', '--show-toplevel']).toString().trim();
    if (resolve(top) !== resolve(dir)) return basename(dir);
    return execFileSync('git', ['-C', dir, 'rev-parse', '--short', 'HEAD']).toString().trim();
  };
  const roles = [
    { name: 'raw BullMQ', role: 'raw' },
    ...builds.map((dir, i) => ({ name: `statecrew ${label(dir)}`, role: `${dir}#${i}` })),
  ];
  console.log(
    '| round | contender | per second | caller CPU per job | caller socket writes per job | bytes written per job | EVALSHA | XADD | XREAD |',
  );
  console.log('|---|---|---:|---:|---:|---:|---:|---:|---:|');
  for (let round = 1; round <= rounds; round += 1)
    for (const { name, role } of roles) {
      await redis.config('RESETSTAT');
      const child = spawnSync(
        process.execPath,
        [...PROFILED, '--import', 'tsx', fileURLToPath(import.meta.url)],
        {
          env: { ...process.env, ROLE: role, QUEUE: queue, TASKS: String(tasks) },
          encoding: 'utf8',
        },
      );
      const out = JSON.parse(child.stdout.trim().split('\n').at(-1) as string) as Record<string, number>;
      const commands = await commandsPerJob(redis, tasks + WARM_UP);
      console.log(
        `| ${round} | ${name} | ${out.perSecond?.toFixed(0)} | ${out.cpuUs?.toFixed(0)} µs | ${out.writes?.toFixed(2)} | ${out.bytes?.toFixed(0)} | ${commands} |`,
      );
    }
  // Its close lets it finish (and write its profile) before the queues go.
  await new Promise((exit) => worker.once('exit', exit).kill('SIGTERM'));
  for (const name of [`${queue}-raw`, ...builds.map((_, i) => `${queue}-b${i}`)]) {
    const q = new Queue(name, { connection });
    await q.obliterate({ force: true });
    await q.close();
  }
  redis.disconnect();
}

if (process.env.ROLE === undefined) await main();
else await contend(process.env.ROLE, process.env.QUEUE as string, Number(process.env.TASKS));
process.exit(0);
