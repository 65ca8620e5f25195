import { describe, expect, it } from 'vitest';
import { Agent, Crew, MemoryStore, Task } from '../../src/index.js';
import { createScriptedModel, type ScriptedModel } from '../../src/testing.js';
import { taskLine } from '../helpers.js';

/** CrewAI's divider between earlier outputs (`DIVIDERS` in crewai/utilities/formatter.py). */
const DIVIDER = '\n\n----------\n\n';

/** A model answering `<task> out`, and the context each task was given, by task. */
function answering(): { llm: ScriptedModel; contextOf: (task: string) => string | undefined } {
  const llm = createScriptedModel((request) => `${taskLine(request.prompt).slice('Task: '.length)} out`);
  const contextOf = (task: string) =>
    llm.calls.findLast((call) => taskLine(call.prompt) === `Task: ${task}`)?.context;
  return { llm, contextOf };
}

function tasksFor(llm: ScriptedModel, names: readonly string[], extra: Partial<Record<string, object>> = {}) {
  const agent = new Agent({ role: 'Writer', llm });
  return names.map((name) => new Task({ name, description: name, agent, ...extra[name] }));
}

describe("a crew's context default for tasks without a context list", () => {
  it("'all' gives the third task the first two outputs, in order, with CrewAI's divider", async () => {
    const { llm, contextOf } = answering();
    const out = await new Crew({ tasks: tasksFor(llm, ['one', 'two', 'three']), context: 'all' }).kickoff();
    expect(out.status).toBe('completed');
    expect(contextOf('one')).toBe('');
    expect(contextOf('two')).toBe('one out');
    expect(contextOf('three')).toBe(`one out${DIVIDER}two out`);
    // What the model is asked holds them too: the task's first message carries its context.
    expect(llm.calls[2]?.messages[0]?.content).toBe(`Task: three\n\nContext:\none out${DIVIDER}two out`);
  });

  it("'previous' (the default) gives each task the previous output only", async () => {
    for (const context of [undefined, 'previous' as const]) {
      const { llm, contextOf } = answering();
      const crew = new Crew({ tasks: tasksFor(llm, ['one', 'two', 'three']), context });
      expect(crew.context).toBe('previous');
      await crew.kickoff();
      expect(contextOf('two')).toBe('one out');
      expect(contextOf('three')).toBe('two out');
    }
  });

  it("leaves a task's own context list as it is under 'all': those tasks joined with a newline, [] nothing", async () => {
    const { llm, contextOf } = answering();
    const [one, two, three, four] = tasksFor(llm, ['one', 'two', 'three', 'four']) as [
      Task,
      Task,
      Task,
      Task,
    ];
    three.context = [two, one];
    four.context = [];
    await new Crew({ tasks: [one, two, three, four], context: 'all' }).kickoff();
    expect(contextOf('three')).toBe('two out\none out');
    expect(contextOf('four')).toBe('');
  });

  it("gives a task after asynchronous ones every earlier output under 'all', and an asynchronous one the last task before it", async () => {
    const { llm, contextOf } = answering();
    const tasks = tasksFor(llm, ['plan', 'a', 'b', 'join'], {
      a: { asyncExecution: true },
      b: { asyncExecution: true },
    });
    const out = await new Crew({ tasks, context: 'all' }).kickoff();
    expect(out.status).toBe('completed');
    // CrewAI: an asynchronous task reads [last_sync_output]; the next task every output so far.
    expect(contextOf('a')).toBe('plan out');
    expect(contextOf('b')).toBe('plan out');
    expect(contextOf('join')).toBe(`plan out${DIVIDER}a out${DIVIDER}b out`);
  });

  it("gives a loop's tasks every earlier output of their iteration under 'all'", async () => {
    const { llm } = answering();
    const crew = new Crew({
      tasks: tasksFor(llm, ['one', 'two', 'three']),
      process: 'loop',
      loop: { condition: 'done', judge: () => 'NO', maxIterations: 2 },
      context: 'all',
    });
    const out = await crew.kickoff();
    expect(out.metadata.iterations).toBe(2);
    const contexts = llm.calls.map((call) => call.context);
    expect(contexts).toEqual([
      '',
      'one out',
      `one out${DIVIDER}two out`,
      // The next iteration's first task reads the last one's final output, as under 'previous'.
      'three out',
      'one out',
      `one out${DIVIDER}two out`,
    ]);
  });

  it('refuses a context default that is neither previous nor all, with invalid_option', () => {
    const { llm } = answering();
    expect(() => new Crew({ tasks: tasksFor(llm, ['one']), context: 'every' as unknown as 'all' })).toThrow(
      expect.objectContaining({ code: 'invalid_option', message: expect.stringContaining('context') }),
    );
  });

  it("gives a task resumed after a pause the same context under 'all', the earlier outputs read from the store", async () => {
    const store = new MemoryStore();
    const crewOf = (llm: ScriptedModel) =>
      new Crew({
        name: 'reviewed',
        tasks: tasksFor(llm, ['one', 'two', 'three'], { two: { humanInput: true } }),
        store,
        context: 'all',
      });
    const first = answering();
    const paused = await crewOf(first.llm).kickoff({ executionId: 'r1' });
    expect(paused.status).toBe('paused');
    expect(first.llm.calls).toHaveLength(2);
    // Another crew object, as another process would have: only the store holds what ran.
    const second = answering();
    const out = await crewOf(second.llm).resume('r1', { reviews: { two: { approve: true } } });
    expect(out.status).toBe('completed');
    expect(second.llm.calls).toHaveLength(1);
    expect(second.contextOf('three')).toBe(`one out${DIVIDER}two out`);
    const replayed = answering();
    const again = await crewOf(replayed.llm).replay('r1', { fromTask: 'three' });
    expect(again.status).toBe('completed');
    expect(replayed.contextOf('three')).toBe(`one out${DIVIDER}two out`);
  });
});
