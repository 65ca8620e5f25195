import { describe, expect, it } from 'vitest';
import { Agent, Crew, InvalidOptionError, type StatecrewEvent, Task } from '../../src/index.js';
import { createScriptedModel } from '../../src/testing.js';
import { echoModel, gatedModel, taskLine } from '../helpers.js';

/** The node events of a run, as `<type> <nodeId>`, in order. */
function nodeEvents(events: StatecrewEvent[]): string[] {
  return events.flatMap((e) =>
    'nodeId' in e && (e.type === 'node.started' || e.type === 'node.completed')
      ? [`${e.type} ${e.nodeId}`]
      : [],
  );
}

describe('asynchronous tasks in a sequential crew (async_execution)', () => {
  it('runs an asynchronous task beside the next ones and is joined by the first that is not asynchronous', async () => {
    const gate = gatedModel();
    const agent = new Agent({ role: 'Researcher', llm: gate.model });
    const tasks = [
      new Task({ name: 'research', description: 'research', agent, asyncExecution: true }),
      new Task({ name: 'facts', description: 'facts', agent, asyncExecution: true }),
      new Task({ name: 'write', description: 'write', agent }),
    ];
    const run = new Crew({ tasks }).run();
    const events: StatecrewEvent[] = [];
    run.events$.subscribe((e) => events.push(e));
    // research's call is still waiting when facts' call starts: the two overlap.
    await gate.whenCalled('research');
    await gate.whenCalled('facts');
    expect(gate.started).toEqual(['research', 'facts']);
    gate.release('facts', 'facts found');
    gate.release('research', 'research done');
    await gate.whenCalled('write');
    gate.release('write', 'written');
    const out = await run.result;
    expect(out.status).toBe('completed');
    expect(out.raw).toBe('written');
    const order = nodeEvents(events);
    expect(order.indexOf('node.started write')).toBeGreaterThan(order.indexOf('node.completed research'));
    expect(order.indexOf('node.started write')).toBeGreaterThan(order.indexOf('node.completed facts'));
    // The joining task reads the outputs it waited for, in list order.
    const write = gate.model.calls.find((c) => taskLine(c.prompt) === 'Task: write');
    expect(write?.context).toBe('research done\nfacts found');
  });

  it('does not start the joining task until the asynchronous one finished, even when it reads another context', async () => {
    const gate = gatedModel();
    const agent = new Agent({ role: 'Writer', llm: gate.model });
    const plan = new Task({ name: 'plan', description: 'plan', agent });
    const tasks = [
      plan,
      new Task({ name: 'slow', description: 'slow', agent, asyncExecution: true }),
      new Task({ name: 'next', description: 'next', agent, context: [plan] }),
    ];
    const run = new Crew({ tasks }).run();
    const events: StatecrewEvent[] = [];
    run.events$.subscribe((e) => events.push(e));
    await gate.whenCalled('plan');
    gate.release('plan', 'the plan');
    await gate.whenCalled('slow');
    gate.release('slow', 'slow result');
    await gate.whenCalled('next');
    gate.release('next');
    const out = await run.result;
    expect(out.status).toBe('completed');
    const order = nodeEvents(events);
    expect(order.indexOf('node.started next')).toBeGreaterThan(order.indexOf('node.completed slow'));
    // The asynchronous task reads the last task before it that is not asynchronous; `next` its own list.
    expect(gate.model.calls.find((c) => taskLine(c.prompt) === 'Task: slow')?.context).toBe('the plan');
    expect(gate.model.calls.find((c) => taskLine(c.prompt) === 'Task: next')?.context).toBe('the plan');
  });

  it('joins a last asynchronous task at the crew’s end, whose output is the crew’s', async () => {
    const llm = echoModel();
    const agent = new Agent({ role: 'R', llm });
    const tasks = [
      new Task({ name: 'plan', description: 'plan', agent }),
      new Task({ name: 'report', description: 'report', agent, asyncExecution: true }),
    ];
    const out = await new Crew({ tasks }).kickoff();
    expect(out.status).toBe('completed');
    expect(out.raw).toBe('R: report');
    expect(out.metadata.leaves).toEqual(['report']);
    expect(llm.calls.map((c) => c.context)).toEqual(['', 'R: plan']);
  });

  it('blocks the joining task when an asynchronous task fails, while the one beside it completes', async () => {
    const llm = createScriptedModel((request) => {
      const task = taskLine(request.prompt).slice('Task: '.length);
      if (task === 'broken') throw Object.assign(new Error('bad request'), { status: 400 });
      return `${task} ok`;
    });
    const agent = new Agent({ role: 'R', llm, maxRetries: 0 });
    const tasks = [
      new Task({ name: 'broken', description: 'broken', agent, asyncExecution: true }),
      new Task({ name: 'fine', description: 'fine', agent, asyncExecution: true }),
      new Task({ name: 'join', description: 'join', agent }),
      new Task({ name: 'after', description: 'after', agent }),
    ];
    const out = await new Crew({ tasks }).kickoff();
    expect(out.status).toBe('partial');
    expect(out.nodes.find((n) => n.nodeId === 'fine')?.status).toBe('completed');
    expect(out.metadata.blocked).toEqual(['join', 'after']);
  });

  it('refuses a crew that ends with more than one asynchronous task, at construction', () => {
    const agent = new Agent({ role: 'R', llm: echoModel() });
    const tasks = [
      new Task({ name: 'a', description: 'a', agent }),
      new Task({ name: 'b', description: 'b', agent, asyncExecution: true }),
      new Task({ name: 'c', description: 'c', agent, asyncExecution: true }),
    ];
    expect(() => new Crew({ tasks })).toThrow(InvalidOptionError);
    expect(() => new Crew({ tasks })).toThrow(
      'Crew: the crew ends with 2 asynchronous tasks ("b", "c"); it may end with at most one',
    );
    // Other processes decide for themselves what runs together: the key changes nothing there.
    expect(() => new Crew({ tasks, process: 'graph' })).not.toThrow();
  });

  it('refuses at construction an asynchronous task whose context names an asynchronous task beside it', async () => {
    const llm = echoModel();
    const agent = new Agent({ role: 'R', llm });
    const first = new Task({ name: 'first', description: 'first', agent, asyncExecution: true });
    const second = new Task({ name: 'second', description: 'second', agent, asyncExecution: true });
    const tasks = [first, second, new Task({ name: 'end', description: 'end', agent })];
    second.context = [first];
    const refusal =
      'Task "second" is asynchronous and its context names "first", an asynchronous task it runs beside';
    expect(() => new Crew({ tasks })).toThrow(refusal);
    // A context set after construction is refused by the kickoff, before any call.
    second.context = undefined;
    const crew = new Crew({ tasks });
    second.context = [first];
    await expect(crew.kickoff()).rejects.toThrow(refusal);
    expect(llm.calls).toHaveLength(0);
  });

  it('draws the compiled dependencies and analyses them as a graph', () => {
    const agent = new Agent({ role: 'R', llm: echoModel() });
    const crew = new Crew({
      tasks: [
        new Task({ name: 'plan', description: 'plan', agent }),
        new Task({ name: 'a', description: 'a', agent, asyncExecution: true }),
        new Task({ name: 'b', description: 'b', agent, asyncExecution: true }),
        new Task({ name: 'join', description: 'join', agent }),
      ],
    });
    const edges = crew.processShape().edges.map((e) => `${e.from}->${e.to}`);
    expect(edges).toEqual(['plan->a', 'plan->b', 'plan->join', 'a->join', 'b->join']);
    expect(crew.analyze().blockedOnFailure.a).toEqual(['join']);
  });
});
