import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Agent, Crew, createFlow, type StatecrewEvent, Task } from '../../src/index.js';

const unhandled: unknown[] = [];
const record = (reason: unknown) => unhandled.push(reason);
/** Lets every pending promise job and a few macrotasks run, so a rejection nobody handled would surface. */
const settle = async () => {
  for (let i = 0; i < 3; i += 1) await new Promise((resolve) => setImmediate(resolve));
};

function watch(run: { events$: { subscribe(fn: (e: StatecrewEvent) => void): unknown } }) {
  const events: StatecrewEvent[] = [];
  run.events$.subscribe((e) => events.push(e));
  return events;
}

describe('a run whose result nobody awaits', () => {
  beforeEach(() => {
    unhandled.length = 0;
    process.on('unhandledRejection', record);
  });
  afterEach(() => {
    process.off('unhandledRejection', record);
  });

  it('reports a failing manager as run.failed and never as an unhandled rejection', async () => {
    const worker = new Agent({ role: 'W', llm: () => 'ok' });
    const crew = new Crew({
      agents: [worker],
      tasks: [new Task({ name: 'a', description: 'a' })],
      process: 'hierarchical',
      manager: {
        allocate: () => {
          throw { code: 429, msg: 'rate' };
        },
        synthesize: () => 'never',
      },
    });
    const events = watch(crew.run());
    await settle();
    expect(events.at(-1)).toMatchObject({ type: 'run.failed', code: 'manager_failed' });
    expect(unhandled).toEqual([]);
  });

  it('reports an aborted flow as run.failed and never as an unhandled rejection', async () => {
    const controller = new AbortController();
    const flow = createFlow({ name: 'f', initialState: {} }).start('s', () => new Promise(() => {}));
    const events = watch(flow.run({ signal: controller.signal }));
    await settle();
    controller.abort('stop');
    await settle();
    expect(events.at(-1)).toMatchObject({ type: 'run.failed', code: 'aborted' });
    expect(unhandled).toEqual([]);
  });

  it('still rejects for a caller who awaits the result', async () => {
    const controller = new AbortController();
    controller.abort('early');
    const crew = new Crew({
      tasks: [new Task({ description: 'a', agent: new Agent({ role: 'W', llm: () => 'ok' }) })],
    });
    await expect(crew.run({ signal: controller.signal }).result).rejects.toMatchObject({ code: 'aborted' });
  });
});
