import { describe, expect, it } from 'vitest';
import { Agent, Crew, createFlow, type ProcessKind, Task } from '../../src/index.js';
import { liveRuns } from '../../src/runtime/engine/run-registry.js';
import { scriptedModel } from '../../src/testing.js';

function crew(process: ProcessKind, llm: ConstructorParameters<typeof Agent>[0]['llm']) {
  const worker = new Agent({ role: 'W', llm, maxRetries: 0 });
  return new Crew({
    tasks: [
      new Task({ name: 'a', description: 'a', agent: worker }),
      new Task({ name: 'b', description: 'b', agent: worker }),
    ],
    agents: [worker],
    process,
    manager: { allocate: () => 'W', synthesize: (_g, outputs) => outputs.join() },
    loop: { condition: 'done', judge: () => 'YES' },
  });
}

describe('run handlers', () => {
  it('are released when runs complete, fail, are rejected or are aborted', async () => {
    const before = liveRuns();
    for (const process of ['sequential', 'hierarchical', 'parallel', 'graph', 'loop'] as const) {
      await crew(process, () => 'ok').kickoff();
      await crew(process, () => {
        throw new Error('down');
      }).kickoff();
      const controller = new AbortController();
      const hanging = crew(
        process,
        scriptedModel(() => () => new Promise<string>(() => {})),
      ).run({ signal: controller.signal });
      await new Promise<void>((resolve) =>
        hanging.events$.subscribe((e) => e.type === 'node.started' && resolve()),
      );
      controller.abort(new Error('stop'));
      await expect(hanging.result).rejects.toThrow('stop');
    }
    const rejecting = new Crew({
      tasks: [new Task({ name: 'a', description: 'a' })],
      agents: [new Agent({ role: 'W', llm: () => 'x' })],
      process: 'hierarchical',
      manager: { allocate: () => 'Nobody', synthesize: () => '' },
    });
    await expect(rejecting.kickoff()).rejects.toMatchObject({ code: 'unknown_worker' });
    const flow = createFlow({ name: 'f', initialState: {} })
      .start('s', () => 's')
      .listen('t', 's', () => {
        throw new Error('step failed');
      });
    await flow.kickoff();
    await flow.kickoff({ routes: {} });
    expect(liveRuns()).toBe(before);
    expect(before).toBe(0);
  });
});
