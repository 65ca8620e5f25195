import { type Adapter, stubModel } from './workloads.js';

/** The bare floor: plain async functions and Promise.all, no runtime at all. */
export const floor: Adapter = {
  name: 'floor (bare async)',
  async build(workload, n) {
    switch (workload) {
      case 'W1':
        return async () => {
          let output = 'start';
          let steps = 0;
          for (let i = 0; i < n; i += 1) {
            output = await stubModel(output);
            steps += 1;
          }
          return steps;
        };
      case 'W2':
        return async () => {
          const start = await stubModel('start');
          const outputs = await Promise.all(Array.from({ length: n }, (_, i) => stubModel(`${start}${i}`)));
          await stubModel(outputs.join(','));
          return outputs.length;
        };
      case 'W3':
        return async () => {
          let counter = 0;
          while (counter < n) {
            await stubModel(String(counter));
            counter += 1;
          }
          return counter;
        };
      case 'W4':
        return async () => {
          let left = 0;
          for (let i = 0; i < n; i += 1) {
            const input = await stubModel(String(i));
            const branch = i % 2 === 0 ? 'left' : 'right';
            await stubModel(`${branch}${input}`);
            if (branch === 'left') left += 1;
          }
          return left;
        };
    }
  },
};
