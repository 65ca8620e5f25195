import { randomUUID } from 'node:crypto';
import {
  createQueueExecutor,
  createWorker,
  type QueueExecutor,
  type QueueWorker,
} from '../../src/queue/index.js';
import { executorContract } from '../contracts/executor.contract.js';
import { connection, noServices, obliterate } from './queue-helpers.js';

if (noServices)
  console.log('Queue executor tests skipped: STATECREW_NO_SERVICES=1 says no Redis server is running');

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
