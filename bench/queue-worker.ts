/**
 * A worker process for `bench/queue-throughput.ts`. It holds, on queue `QUEUE`-raw, a bare BullMQ
 * worker whose processor does nothing (or waits `DELAY_MS`); and for each built statecrew in `BUILDS`
 * (a JSON list of checkout directories, each with its `dist/`), on queue `QUEUE`-b<i>, a statecrew
 * worker holding the agent `Worker`, which answers after `DELAY_MS` (at once with 0). Each holds
 * `CONCURRENCY` jobs at a time. Prints `ready` once every worker takes jobs.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { Worker } from 'bullmq';

const queue = process.env.QUEUE as string;
const delayMs = Number(process.env.DELAY_MS ?? '0');
const concurrency = Number(process.env.CONCURRENCY ?? '16');
const builds = JSON.parse(process.env.BUILDS ?? '[]') as string[];
const connection = { host: '127.0.0.1', port: 6379, maxRetriesPerRequest: null };

const raw = new Worker(
  `${queue}-raw`,
  async () => {
    if (delayMs > 0) await sleep(delayMs);
    return 'done';
  },
  { connection, concurrency },
);
const closers: (() => Promise<void>)[] = [() => raw.close()];
const readies: Promise<unknown>[] = [raw.waitUntilReady()];

for (const [i, dir] of builds.entries()) {
  const built = (href: string) => import(pathToFileURL(`${dir}/dist/${href}`).href);
  const statecrew = (await built('index.js')) as typeof import('../src/index.js');
  const { createWorker } = (await built('queue/index.js')) as typeof import('../src/queue/index.js');
  const llm = delayMs === 0 ? () => 'done' : () => sleep(delayMs).then(() => 'done');
  const worker = createWorker({
    queue: `${queue}-b${i}`,
    name: `${process.env.NAME}-b${i}`,
    agents: [new statecrew.Agent({ role: 'Worker', llm })],
    concurrency,
  });
  closers.push(() => worker.close());
  readies.push(worker.ready);
}
await Promise.all(readies);
process.stdout.write('ready\n');
process.on('SIGTERM', () => void Promise.all(closers.map((close) => close())).then(() => process.exit(0)));
