import { describe, expect, it } from 'vitest';
import { Agent, Crew, Task } from '../../src/index.js';
import { createManualClock, createScriptedModel } from '../../src/testing.js';

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('rate limits', () => {
  it('space an agent’s calls by its maxRpm on the run’s clock instead of failing them', async () => {
    const clock = createManualClock();
    const seen: number[] = [];
    const agent = new Agent({
      role: 'W',
      maxRpm: 60, // one call a second
      llm: () => {
        seen.push(clock.now());
        return 'ok';
      },
    });
    const tasks = ['a', 'b', 'c'].map((name) => new Task({ name, description: name, agent }));
    const run = new Crew({ tasks, process: 'parallel', maxConcurrency: 3 }).run({ clock });
    await clock.whenTimer();
    await nextTurn();
    expect(seen).toHaveLength(1);
    clock.advance(999);
    await nextTurn();
    expect(seen).toHaveLength(1);
    clock.advance(1);
    await clock.whenTimer();
    await nextTurn();
    expect(seen).toHaveLength(2);
    clock.advance(1000);
    const out = await run.result;
    expect(out.status).toBe('completed');
    expect(seen.map((t) => t - (seen[0] as number))).toEqual([0, 1000, 2000]);
  });

  it('share a model’s maxRpm among the agents that use it', async () => {
    const clock = createManualClock();
    const seen: number[] = [];
    const base = createScriptedModel(() => {
      seen.push(clock.now());
      return 'ok';
    });
    const shared = { maxRpm: 30, generate: base.generate.bind(base) }; // one call every two seconds
    const a = new Agent({ role: 'A', llm: shared });
    const b = new Agent({ role: 'B', llm: shared });
    const tasks = [
      new Task({ name: 'a', description: 'a', agent: a }),
      new Task({ name: 'b', description: 'b', agent: b }),
    ];
    const run = new Crew({ tasks, process: 'parallel' }).run({ clock });
    await clock.whenTimer();
    await nextTurn(); // the first call, whose turn was now, has been made
    expect(seen).toHaveLength(1);
    clock.advance(1999);
    await nextTurn();
    expect(seen).toHaveLength(1);
    clock.advance(1);
    expect((await run.result).status).toBe('completed');
    expect(seen.map((t) => t - (seen[0] as number))).toEqual([0, 2000]);
  });

  it('refuses a maxRpm that is not positive (invalid_option)', () => {
    expect(() => new Agent({ role: 'A', llm: () => 'x', maxRpm: 0 })).toThrow(/option "maxRpm"/);
  });
});
