import { describe, expect, it } from 'vitest';
import { Agent, Crew, createFlow, RunAbortedError, type StatecrewEvent, Task } from '../../src/index.js';
import { gatedModel } from '../helpers.js';

describe('aborting a run', () => {
  it('rejects a flow with aborted, the reason as cause and the state, trail and outputs so far', async () => {
    const controller = new AbortController();
    let entered!: () => void;
    const waiting = new Promise<void>((resolve) => {
      entered = resolve;
    });
    let seenSignal: AbortSignal | undefined;
    const flow = createFlow({ name: 'slow', initialState: { drafts: 0 } })
      .start('draft', ({ state }) => {
        state.drafts += 1;
        return 'v1';
      })
      .listen('review', 'draft', ({ signal }) => {
        seenSignal = signal;
        entered();
        return new Promise(() => {});
      });
    const run = flow.run({ signal: controller.signal });
    await waiting;
    const reason = new Error('shutting down');
    controller.abort(reason);
    const error = await run.result.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RunAbortedError);
    const aborted = error as RunAbortedError<Awaited<typeof run.result>>;
    expect(aborted).toMatchObject({ code: 'aborted', cause: reason });
    expect(aborted.partial).toMatchObject({
      id: run.id,
      status: 'failed',
      state: { drafts: 1, id: run.id },
      trail: ['draft'],
      outputs: { draft: 'v1' },
      emitted: ['draft'],
      errors: {},
      failures: {},
    });
    expect(seenSignal?.aborted).toBe(true);
  });

  it('ends the event stream with run.failed carrying the code aborted', async () => {
    const gate = gatedModel();
    const worker = new Agent({ role: 'W', llm: gate.model });
    const crew = new Crew({ tasks: [new Task({ name: 'a', description: 'a', agent: worker })] });
    const controller = new AbortController();
    const run = crew.run({ signal: controller.signal });
    const events: StatecrewEvent[] = [];
    run.events$.subscribe((e) => events.push(e));
    await gate.whenCalled('a');
    controller.abort('bye');
    await run.result.catch(() => undefined);
    expect(events.at(-1)).toMatchObject({ type: 'run.failed', code: 'aborted' });
  });

  it('starts nothing more when the abort comes from inside a model call while ready tasks are starting', async () => {
    const controller = new AbortController();
    let calls = 0;
    const worker = new Agent({
      role: 'W',
      llm: () => {
        calls += 1;
        if (calls === 2) controller.abort('stop now');
        return 'ok';
      },
    });
    const root = new Task({ name: 'root', description: 'root', agent: worker });
    const middle = Array.from(
      { length: 6 },
      (_, i) => new Task({ name: `m${i}`, description: `m${i}`, agent: worker, context: [root] }),
    );
    const crew = new Crew({ tasks: [root, ...middle], process: 'graph', maxConcurrency: 4 });
    await expect(crew.kickoff({ signal: controller.signal })).rejects.toMatchObject({ code: 'aborted' });
    expect(calls).toBe(2);
  });
});
