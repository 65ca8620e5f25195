import { describe, expect, it } from 'vitest';
import { Crew, StatecrewError, Task } from '../../src/index.js';
import { agent, echoModel, taskLine, tickingClock } from '../helpers.js';

function threeTasks() {
  const llm = echoModel();
  const researcher = agent('Researcher', llm);
  const writer = agent('Writer', llm);
  const editor = agent('Editor', llm);
  const research = new Task({ name: 'research', description: 'Research {topic}', agent: researcher });
  const write = new Task({ name: 'write', description: 'Write about {topic}', agent: writer });
  const edit = new Task({ name: 'edit', description: 'Edit the draft', agent: editor });
  return { llm, research, write, edit };
}

/** What `make` throws (the test fails when it throws nothing). */
function thrown(make: () => unknown): unknown {
  try {
    make();
  } catch (error) {
    return error;
  }
  throw new Error('nothing was thrown');
}

describe('sequential process', () => {
  it('runs the tasks in list order, one at a time', async () => {
    const { llm, research, write, edit } = threeTasks();
    const out = await new Crew({ tasks: [research, write, edit] }).kickoff({ inputs: { topic: 'AI' } });
    expect(llm.calls.map((c) => c.agent)).toEqual(['Researcher', 'Writer', 'Editor']);
    expect(llm.peakInFlight).toBe(1);
    expect(out.tasksOutput.map((t) => t.name)).toEqual(['research', 'write', 'edit']);
    expect(out.raw).toBe('Editor: Edit the draft');
    expect(out.output).toBe('Editor: Edit the draft');
    expect(out.metadata.leaves).toEqual(['edit']);
  });

  it('feeds each task the previous raw when context is undefined', async () => {
    const { llm, research, write, edit } = threeTasks();
    await new Crew({ tasks: [research, write, edit] }).kickoff({ inputs: { topic: 'AI' } });
    expect(llm.calls.map((c) => c.context)).toEqual([
      '',
      'Researcher: Research AI',
      'Writer: Write about AI',
    ]);
  });

  it('fans in the listed tasks’ raws joined with a newline, in the order of the context list', async () => {
    const { llm, research, write, edit } = threeTasks();
    const summary = new Task({
      name: 'summary',
      description: 'Sum up',
      agent: agent('Chief', llm),
      context: [edit, research],
    });
    await new Crew({ tasks: [research, write, edit, summary] }).kickoff({ inputs: { topic: 'AI' } });
    expect(llm.calls[3]?.context).toBe('Editor: Edit the draft\nResearcher: Research AI');
  });

  it('gives a task with an empty context list no context at all', async () => {
    const { llm, research, write, edit } = threeTasks();
    edit.context = [];
    await new Crew({ tasks: [research, write, edit] }).kickoff({ inputs: { topic: 'AI' } });
    expect(llm.calls[2]?.context).toBe('');
    // The persona is the system message; the user's opens with the task lines and nothing after them.
    const call = llm.calls[2];
    expect(call?.messages).toEqual([{ role: 'user', content: call?.prompt.slice(call.system.length + 1) }]);
    expect(call?.system).toBe('You are Editor.');
    expect(call?.messages[0]?.content).toMatch(/^Task: Edit the draft/);
  });

  it('interpolates inputs into descriptions, expected outputs and personas, keeping JSON braces and the originals', async () => {
    const llm = echoModel();
    const analyst = agent('{field} analyst', llm);
    const task = new Task({
      name: 'report',
      description: 'Report on {topic} as {"title": "...", "n": 3} and keep {unknown}',
      expectedOutput: '{count} bullets',
      agent: analyst,
    });
    const out = await new Crew({ tasks: [task] }).kickoff({
      inputs: { topic: 'AI', count: 3, field: 'market' },
    });
    const prompt = llm.calls[0]?.prompt ?? '';
    expect(prompt.split('\n')[0]).toBe('You are market analyst.');
    expect(taskLine(prompt)).toBe('Task: Report on AI as {"title": "...", "n": 3} and keep {unknown}');
    expect(prompt).toContain('Expected output: 3 bullets');
    expect(out.tasksOutput[0]?.description).toBe(
      'Report on AI as {"title": "...", "n": 3} and keep {unknown}',
    );
    expect(task.description).toBe('Report on {topic} as {"title": "...", "n": 3} and keep {unknown}');
    expect(analyst.role).toBe('{field} analyst');
  });

  it('gives identical results for two runs with the same clock and execution id', async () => {
    const run = async () => {
      const { research, write, edit } = threeTasks();
      const crew = new Crew({ tasks: [research, write, edit] });
      const out = await crew.kickoff({
        inputs: { topic: 'AI' },
        clock: tickingClock(),
        executionId: 'fixed',
      });
      return JSON.stringify(out);
    };
    const first = await run();
    expect(await run()).toBe(first);
    expect(JSON.parse(first).metadata.executionId).toBe('fixed');
  });

  it('throws a forward context reference from the constructor, as CrewAI does when a crew is built', () => {
    const { research, write, edit } = threeTasks();
    write.context = [edit];
    const error = thrown(() => new Crew({ tasks: [research, write, edit] }));
    expect(error).toBeInstanceOf(StatecrewError);
    expect(error).toMatchObject({ code: 'context_forward_reference' });
    expect((error as Error).message).toBe(
      'Task "write" references task "edit", which runs later (context_forward_reference)',
    );
    // A crew whose texts take no inputs (planned once, ahead of its runs) is refused alike.
    const llm = echoModel();
    const first = new Task({ name: 'first', description: 'First', agent: agent('A', llm) });
    const second = new Task({ name: 'second', description: 'Second', agent: agent('B', llm) });
    first.context = [second];
    expect(thrown(() => new Crew({ tasks: [first, second] }))).toMatchObject({
      code: 'context_forward_reference',
    });
  });

  it('rejects at kickoff, before any model call, a forward reference made after construction', async () => {
    const { llm, research, write, edit } = threeTasks();
    const crew = new Crew({ tasks: [research, write, edit] });
    write.context = [edit];
    await expect(crew.kickoff({ inputs: { topic: 'AI' } })).rejects.toMatchObject({
      code: 'context_forward_reference',
      message: 'Task "write" references task "edit", which runs later (context_forward_reference)',
    });
    const first = new Task({ name: 'first', description: 'First', agent: agent('A', llm) });
    const second = new Task({ name: 'second', description: 'Second', agent: agent('B', llm) });
    const inputFree = new Crew({ tasks: [first, second] });
    first.context = [second];
    await expect(inputFree.kickoff()).rejects.toMatchObject({ code: 'context_forward_reference' });
    expect(llm.calls).toHaveLength(0);
  });

  it('throws from the constructor a task that reads itself, and one that reads a task outside the crew', () => {
    const { llm, research, write } = threeTasks();
    write.context = [write];
    expect(thrown(() => new Crew({ tasks: [research, write] }))).toMatchObject({
      code: 'context_forward_reference',
    });
    const stranger = new Task({ name: 'stranger', description: 'x', agent: agent('X', llm) });
    write.context = [stranger];
    expect(thrown(() => new Crew({ tasks: [research, write] }))).toMatchObject({
      code: 'unknown_context_task',
    });
  });

  it('throws a task without an agent from the constructor, as CrewAI does for a sequential crew', () => {
    const { research } = threeTasks();
    const orphan = new Task({ name: 'orphan', description: 'nobody does this' });
    expect(thrown(() => new Crew({ tasks: [research, orphan] }))).toMatchObject({
      code: 'missing_agent',
      message: expect.stringContaining('Task "orphan" has no agent'),
    });
  });

  it('throws from the constructor when two tasks share a node id', () => {
    const { research, write } = threeTasks();
    const again = new Task({ name: 'research', description: 'again', agent: research.agent });
    expect(() => new Crew({ tasks: [research, write, again] })).toThrow(
      expect.objectContaining({
        code: 'duplicate_task',
        message: expect.stringContaining('positions 1 and 3'),
      }),
    );
    const unnamed = new Task({ description: 'unnamed', agent: research.agent });
    const named = new Task({ name: 'task-1', description: 'clash', agent: research.agent });
    expect(() => new Crew({ tasks: [unnamed, named] })).toThrow(
      expect.objectContaining({ code: 'duplicate_task' }),
    );
  });

  it('names unnamed tasks task-<position> and completes an empty crew', async () => {
    const llm = echoModel();
    const a = agent('A', llm);
    const out = await new Crew({
      tasks: [new Task({ description: 'first', agent: a }), new Task({ description: 'second', agent: a })],
    }).kickoff();
    expect(out.nodes.map((n) => n.nodeId)).toEqual(['task-1', 'task-2']);
    const empty = await new Crew({ tasks: [] }).kickoff();
    expect(empty).toMatchObject({ status: 'completed', raw: '', output: {}, tasksOutput: [] });
    expect(empty.metadata.leaves).toEqual([]);
  });
});
