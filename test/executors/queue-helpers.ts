import { type ChildProcess, spawn } from 'node:child_process';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { expect } from 'vitest';
import { spreadKey } from '../fixtures/queue/spread.js';

/** Redis runs here unless STATECREW_NO_SERVICES=1 says it does not. */
export const noServices = process.env.STATECREW_NO_SERVICES === '1';

/** The Redis the queue tests use. */
export const connection = 'redis://127.0.0.1:6379';

/** Removes every key a test queue left (and the fixtures' meeting set for it, see `spread.ts`). */
export async function obliterate(queue: string): Promise<void> {
  const q = new Queue(queue, { connection: { host: '127.0.0.1', port: 6379 } });
  await q.obliterate({ force: true });
  await q.close();
  const redis = new Redis({ host: '127.0.0.1', port: 6379 });
  await redis.del(spreadKey(queue));
  redis.disconnect();
}

/** Removes every key under `prefix` (a Redis store's own, named by the test). */
export async function dropKeys(prefix: string): Promise<void> {
  const redis = new Redis({ host: '127.0.0.1', port: 6379 });
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
    cursor = next;
    if (keys.length > 0) await redis.del(...keys);
  } while (cursor !== '0');
  await redis.quit();
}

/** Resolves once `child` exited. */
export function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/**
 * Starts the worker script `script` (a fixture run through tsx) with `env` added; resolves once it
 * printed `ready` (it takes jobs), rejects if it exits first.
 */
export function startWorkerProcess(script: string, env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('ready')) resolve(child);
    });
    child.on('exit', (code) =>
      reject(new Error(`worker ${env.NAME ?? script} exited with ${code} before it was ready`)),
    );
  });
}

/**
 * `count` readings of the time left on the keys `keysNow` lists, in ms, each taken while its key
 * exists (> 0); fails when fewer came in 3,000 looks.
 */
export async function keyTtls(
  redis: Redis,
  keysNow: () => Promise<string[]>,
  count: number,
): Promise<number[]> {
  const readings: number[] = [];
  for (let tries = 0; readings.length < count && tries < 3000; tries += 1) {
    for (const key of await keysNow()) {
      const left = await redis.pttl(key);
      if (left > 0) readings.push(left);
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  expect(readings.length).toBeGreaterThanOrEqual(count);
  return readings;
}
