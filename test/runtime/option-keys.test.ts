import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent, Crew, createFlow, MemoryStore, StatecrewError, Task } from '../../src/index.js';
import { closestName } from '../../src/options/closest-name.js';
import { createManualClock } from '../../src/testing.js';

/** The error `attempt` throws or rejects with. */
async function errorOf(attempt: () => unknown): Promise<StatecrewError> {
  try {
    await attempt();
  } catch (error) {
    if (error instanceof StatecrewError) return error;
    throw error;
  }
  throw new Error('it did not fail');
}

const agent = new Agent({ role: 'Writer', llm: () => 'ok' });
const tasks = [new Task({ name: 'write', description: 'write', agent })];

describe('options a constructor or run does not know', () => {
  it('refuses a misspelt Crew option, naming it and the option meant', async () => {
    const error = await errorOf(() => new Crew({ tasks, proces: 'parallel' } as never));
    expect(error.code).toBe('invalid_option');
    expect(error.message).toBe('Crew: unknown option "proces" (did you mean "process"?) (invalid_option)');
    expect(error.details).toMatchObject({ where: 'Crew', option: 'proces', suggestion: 'process' });
  });

  it('reads a CrewAI spelling as the option it means (expected_output → expectedOutput)', async () => {
    const error = await errorOf(() => new Task({ description: 'd', expected_output: 'a list' } as never));
    expect(error.message).toBe(
      'Task "d": unknown option "expected_output" (did you mean "expectedOutput"?) (invalid_option)',
    );
  });

  it('refuses a misspelt Agent option', async () => {
    const error = await errorOf(() => new Agent({ role: 'R', llm: () => 'x', backstroy: 'b' } as never));
    expect(error.details).toMatchObject({ option: 'backstroy', suggestion: 'backstory' });
  });

  it('refuses kickoff({ input }) before anything runs, pointing at inputs', async () => {
    let asked = 0;
    const counted = new Agent({
      role: 'Counter',
      llm: () => {
        asked += 1;
        return 'counted';
      },
    });
    const crew = new Crew({ tasks: [new Task({ description: 'count', agent: counted })] });
    const error = await errorOf(() => crew.kickoff({ input: { topic: 'AI' } } as never));
    expect(error.details).toMatchObject({
      where: 'Crew "crew" kickoff',
      option: 'input',
      suggestion: 'inputs',
    });
    expect(asked).toBe(0);
  });

  it('checks resume and replay options too', async () => {
    const crew = new Crew({ tasks, store: new MemoryStore() });
    expect((await errorOf(() => crew.resume('x', { leseMs: 10 } as never))).details.suggestion).toBe(
      'leaseMs',
    );
    const replayed = await errorOf(() => crew.replay('x', { fromTask: 'write', fromtask: 'w' } as never));
    expect(replayed.details).toMatchObject({ option: 'fromtask', suggestion: 'fromTask' });
  });

  it('refuses unknown options of createFlow, a flow kickoff and a flow resume', async () => {
    const created = await errorOf(() => createFlow({ name: 'f', initialState: {}, stor: 1 } as never));
    expect(created.details).toMatchObject({ where: 'createFlow', option: 'stor', suggestion: 'store' });
    const flow = createFlow({ name: 'f', initialState: {} }).start('one', () => 1);
    const kicked = await errorOf(() => flow.kickoff({ input: {} } as never));
    expect(kicked.details).toMatchObject({ option: 'input', suggestion: 'inputs' });
    const resumed = await errorOf(() => flow.resume('x', undefined, { zzz: 1 } as never));
    expect(resumed.message).toBe('Flow "f" resume: unknown option "zzz" (invalid_option)');
    expect(resumed.details.suggestion).toBeUndefined();
  });

  it('gives a schema-checked flow the lease it was created with', async () => {
    const clock = createManualClock(5_000_000);
    // The store sets a lease's expiry on its own clock: here the run's.
    const store = new MemoryStore(() => clock.now());
    let seen: number | undefined;
    const flow = createFlow({
      name: 'typed',
      state: z.object({ n: z.number().default(0) }),
      store,
      leaseMs: 20_000,
    }).start('look', async ({ state }) => {
      seen = (await store.readRun(state.id))?.lease?.expiresAt;
    });
    await flow.kickoff({ clock });
    expect(seen).toBe(5_000_000 + 20_000);
  });
});

describe('closestName', () => {
  it('finds the name meant despite case, underscores and a letter or two', () => {
    const names = ['process', 'maxConcurrency', 'inputs', 'expectedOutput'];
    expect(closestName('proces', names)).toBe('process');
    expect(closestName('max_concurrency', names)).toBe('maxConcurrency');
    expect(closestName('input', names)).toBe('inputs');
    expect(closestName('EXPECTED-OUTPUT', names)).toBe('expectedOutput');
  });

  it('names nothing when nothing is close', () => {
    expect(closestName('zzz', ['process', 'inputs'])).toBeUndefined();
    expect(closestName('id', ['inputs'])).toBeUndefined();
  });
});
