import { describe, expect, it } from 'vitest';
import { Agent, Crew, CycleError, createFlow, Task } from '../../src/index.js';
import { turnCounter } from '../helpers.js';

describe('runs that share the turns of the event loop', () => {
  it('start fifty crews kicked off in one call over many turns, in the order they were kicked off', async () => {
    const turns = turnCounter();
    const firstCallTurn: number[] = [];
    const crews = Array.from({ length: 50 }, (_, c) => {
      let called = false;
      const worker = new Agent({
        role: 'W',
        llm: () => {
          if (!called) firstCallTurn[c] = turns.now();
          called = true;
          return 'ok';
        },
      });
      const tasks = Array.from(
        { length: 3 },
        (_, i) => new Task({ name: `t${i}`, description: 'x', agent: worker }),
      );
      return new Crew({ tasks });
    });
    const outputs = await Promise.all(crews.map((crew) => crew.kickoff()));
    turns.stop();
    expect(outputs.map((o) => o.status)).toEqual(Array(50).fill('completed'));
    // Starting a run counts for 8 of a turn's 16 operations, starting its first task for 1: no turn
    // holds the first calls of more than 16 crews (without a shared turn all 50 came in one).
    const perTurn = new Map<number, number>();
    for (const turn of firstCallTurn) perTurn.set(turn, (perTurn.get(turn) ?? 0) + 1);
    expect(Math.max(...perTurn.values())).toBeLessThanOrEqual(16);
    expect(perTurn.size).toBeGreaterThanOrEqual(4);
    expect(firstCallTurn).toEqual([...firstCallTurn].sort((a, b) => a - b));
  });

  it('still rejects a kickoff that waited for its turn with what is wrong with the crew', async () => {
    const worker = new Agent({ role: 'W', llm: () => 'ok' });
    const fine = Array.from(
      { length: 10 },
      () => new Crew({ tasks: [new Task({ name: 'a', description: 'x', agent: worker })] }),
    );
    const a = new Task({ name: 'a', description: 'x', agent: worker });
    const b = new Task({ name: 'b', description: 'x', agent: worker, context: [a] });
    a.context = [b];
    const cyclic = new Crew({ tasks: [a, b], process: 'graph' });
    const runs = fine.map((crew) => crew.kickoff());
    const rejected = cyclic.kickoff();
    await expect(rejected).rejects.toBeInstanceOf(CycleError);
    expect((await Promise.all(runs)).every((o) => o.status === 'completed')).toBe(true);
  });

  it('start fifty flows kicked off in one call over many turns', async () => {
    const turns = turnCounter();
    const startedAt: number[] = [];
    const flows = Array.from({ length: 50 }, (_, f) =>
      createFlow({ name: `f${f}`, initialState: {} }).start('go', () => {
        startedAt[f] = turns.now();
        return f;
      }),
    );
    const outputs = await Promise.all(flows.map((flow) => flow.kickoff({ inputs: {} })));
    turns.stop();
    expect(outputs.map((o) => o.output)).toEqual(Array.from({ length: 50 }, (_, f) => f));
    expect(Math.max(...startedAt)).toBeGreaterThanOrEqual(20);
  });
});
