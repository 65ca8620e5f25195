import { describe, expect, it } from 'vitest';
import { Crew, type ManagerFunctions, Task } from '../../src/index.js';
import { agent, echoModel } from '../helpers.js';

const manager: ManagerFunctions = {
  allocate: () => 'Worker',
  synthesize: (_goal, outputs) => outputs.join(' | '),
};

function crewWith(configure: (tasks: Task[]) => void) {
  const llm = echoModel();
  const worker = agent('Worker', llm);
  const tasks = ['a', 'b', 'c'].map((name) => new Task({ name, description: name }));
  configure(tasks);
  return { llm, crew: new Crew({ agents: [worker], tasks, process: 'hierarchical', manager }) };
}

describe('hierarchical context', () => {
  it('gives a task without context the accumulated context of every earlier output', async () => {
    const { llm, crew } = crewWith(() => {});
    await crew.kickoff();
    expect(llm.calls.map((c) => c.context)).toEqual(['', 'Worker: a', 'Worker: a\nWorker: b']);
  });

  it('gives a task with context [] nothing, and one with [a] only what a produced', async () => {
    const { llm, crew } = crewWith(([a, b, c]) => {
      (b as Task).context = [];
      (c as Task).context = [a as Task];
    });
    await crew.kickoff();
    expect(llm.calls.map((c) => c.context)).toEqual(['', '', 'Worker: a']);
  });

  it('joins a context list with newlines in the order of the list, and tells the manager the same context', async () => {
    const asked: string[] = [];
    const llm = echoModel();
    const tasks = ['a', 'b', 'c'].map((name) => new Task({ name, description: name }));
    (tasks[2] as Task).context = [tasks[1] as Task, tasks[0] as Task];
    const crew = new Crew({
      agents: [agent('Worker', llm)],
      tasks,
      process: 'hierarchical',
      manager: {
        ...manager,
        allocate: (_d, _r, context) => {
          asked.push(context);
          return 'Worker';
        },
      },
    });
    await crew.kickoff();
    expect(llm.calls[2]?.context).toBe('Worker: b\nWorker: a');
    expect(asked[2]).toBe('Worker: b\nWorker: a');
  });

  it('throws a forward reference from the constructor with context_forward_reference', () => {
    const refused = {
      code: 'context_forward_reference',
      message: 'Task "a" references task "b", which runs later (context_forward_reference)',
    };
    expect(() =>
      crewWith(([a, b]) => {
        (a as Task).context = [b as Task];
      }),
    ).toThrow(expect.objectContaining(refused));
  });

  it('rejects at kickoff, before any call, a forward reference made after construction', async () => {
    const { llm, crew } = crewWith(() => {});
    (crew.tasks[0] as Task).context = [crew.tasks[1] as Task];
    await expect(crew.kickoff()).rejects.toMatchObject({ code: 'context_forward_reference' });
    expect(llm.calls).toHaveLength(0);
  });
});
