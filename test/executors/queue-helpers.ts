import { Queue } from 'bullmq';

/** Redis runs here unless STATECREW_NO_SERVICES=1 says it does not. */
export const noServices = process.env.STATECREW_NO_SERVICES === '1';

/** The Redis the queue tests use. */
export const connection = 'redis://127.0.0.1:6379';

/** Removes every key a test queue left. */
export async function obliterate(queue: string): Promise<void> {
  const q = new Queue(queue, { connection: { host: '127.0.0.1', port: 6379 } });
  await q.obliterate({ force: true });
  await q.close();
}
