/**
 * A worker process for `bench/queue-recovery.ts`: holds the agent
 * `Worker` (answers after `DELAY_MS`, or at once with 0) on queue `QUEUE`, `CONCURRENCY` jobs at a
 * time, from the built package; `LOCK_MS` and `STALLED_MS`, when set, are its lock duration and
 * stalled-check interval (else `createWorker`'s defaults).
 */
import { statecrew } from './built.js';

const { createWorker } = (await import(
  new URL('../dist/queue/index.js', import.meta.url).href
)) as typeof import('../src/queue/index.js');
const delayMs = Number(process.env.DELAY_MS ?? '0');
const llm =
  delayMs === 0
    ? () => 'done'
    : () => new Promise<string>((resolve) => setTimeout(() => resolve('done'), delayMs));
const worker = createWorker({
  queue: process.env.QUEUE as string,
  name: process.env.NAME as string,
  agents: [new statecrew.Agent({ role: 'Worker', llm })],
  concurrency: Number(process.env.CONCURRENCY ?? '16'),
  ...(process.env.LOCK_MS === undefined ? {} : { lockDurationMs: Number(process.env.LOCK_MS) }),
  ...(process.env.STALLED_MS === undefined ? {} : { stalledIntervalMs: Number(process.env.STALLED_MS) }),
});
await worker.ready;
process.stdout.write('ready\n');
process.on('SIGTERM', () => void worker.close().then(() => process.exit(0)));
