import { describe, expect, it } from 'vitest';
import { Crew, Task } from '../../src/index.js';
import { agent, echoModel } from '../helpers.js';

describe('many calls of one agent at once', () => {
  it('warn of no listener leak: 64 calls in flight share their agent’s signal', async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      const worker = agent('W', echoModel());
      const tasks = Array.from(
        { length: 64 },
        (_, i) => new Task({ name: `t${i}`, description: 'x', agent: worker }),
      );
      const out = await new Crew({ tasks, process: 'parallel', maxConcurrency: 64 }).kickoff();
      expect(out.status).toBe('completed');
      // A warning is emitted on the next tick: let it come before looking.
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });
});
