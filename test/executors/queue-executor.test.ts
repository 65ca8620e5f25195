import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import {
  createQueueExecutor,
  createWorker,
  type QueueExecutor,
  type QueueWorker,
} from '../../src/queue/index.js';
import { executorContract } from '../contracts/executor.contract.js';

/** Redis runs here unless STATECREW_NO_SERVICES=1 says it does not. */
const noServices = process.env.STATECREW_NO_SERVICES === '1';
if (noServices)
  console.log('Queue executor tests skipped: STATECREW_NO_SERVICES=1 says no Redis server is running');

const connection = 'redis://127.0.0.1:6379';

/** Removes every key a test queue left. */
export async function obliterate(queue: string): Promise<void> {
  const q = new Queue(queue, { connection: { host: '127.0.0.1', port: 6379 } });
  await q.obliterate({ force: true });
  await q.close();
}

if (!noServices) {
  let parts: { executor: QueueExecutor; worker: QueueWorker; queue: string } | undefined;
  executorContract('the BullMQ queue executor, one worker in this process', {
    async open(registry) {
      const queue = `contract-${randomUUID()}`;
      const worker = createWorker({ connection, queue, ...registry, name: 'worker-1' });
      await worker.ready;
      const executor = createQueueExecutor({ connection, queue });
      parts = { executor, worker, queue };
      return executor;
    },
    worker: 'worker-1',
    async close() {
      if (parts === undefined) return;
      await parts.executor.close();
      await parts.worker.close();
      await obliterate(parts.queue);
      parts = undefined;
    },
  });
}
