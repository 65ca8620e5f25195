import { localExecutor } from '../../src/index.js';
import { executorContract } from '../contracts/executor.contract.js';

executorContract('in-process (the default)', {
  open: async () => undefined,
  close: async () => {},
});

executorContract('localExecutor (a worker without the queue)', {
  open: async (registry) => localExecutor(registry, 'local-worker'),
  worker: 'local-worker',
  close: async () => {},
});
