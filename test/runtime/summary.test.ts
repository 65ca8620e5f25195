import { describe, expect, it } from 'vitest';
import { Agent, Crew, createFlow, RunAbortedError, type StatecrewEvent, Task } from '../../src/index.js';
import { createScriptedModel } from '../../src/testing.js';
import { echoModel, gatedModel, taskLine } from '../helpers.js';

function tasks(llm = echoModel()) {
  const writer = new Agent({ role: 'Writer', llm, maxRetries: 0 });
  return ['research', 'write'].map((name) => new Task({ name, description: `Do ${name}`, agent: writer }));
}

/** A summarizer that says what it read. */
function summarizer() {
  return createScriptedModel((request) => ({
    text: `summary of ${request.context.split('\n\n').length} outputs`,
    usage: { inputTokens: 7, outputTokens: 3 },
  }));
}

describe('summarize: one summary node after the tasks', () => {
  it('merges the completed outputs into out.summary, as a node with its own usage, after every task', async () => {
    const llm = summarizer();
    const crew = new Crew({ tasks: tasks(), goal: 'an article on {topic}', summarize: { llm } });
    const run = crew.run({ inputs: { topic: 'actors' } });
    const events: StatecrewEvent[] = [];
    run.events$.subscribe((e) => events.push(e));
    const out = await run.result;

    expect(out.summary).toBe('summary of 2 outputs');
    expect(llm.calls).toHaveLength(1);
    const [call] = llm.calls;
    expect(call?.system).toMatch(/^You are Summarizer\./);
    expect(taskLine(call?.prompt ?? '')).toBe(
      "Task: Summarize the crew's results for the goal: an article on actors",
    );
    expect(call?.context).toBe('research:\nWriter: Do research\n\nwrite:\nWriter: Do write');

    // A node like the others, but not a task: the tasks' raw, output and list are unchanged.
    expect(out.tasksOutput.map((t) => t.name)).toEqual(['research', 'write']);
    expect(out.raw).toBe('Writer: Do write');
    expect(out.nodes.map((n) => n.nodeId)).toEqual(['research', 'write', 'summary']);
    const node = out.nodes.find((n) => n.nodeId === 'summary');
    expect(node).toMatchObject({ status: 'completed', agent: 'Summarizer', attempts: 1 });
    expect(node?.usage).toMatchObject({ inputTokens: 7, outputTokens: 3, calls: 1 });
    expect(out.usage.calls).toBe(3);
    expect(out.nodeResults.summary).toBe('summary of 2 outputs');
    expect(out.status).toBe('completed');

    const order = events.filter((e) => e.type === 'node.started').map((e) => e.nodeId);
    expect(order).toEqual(['research', 'write', 'summary']);
  });

  it('runs inside a flow step, its actors in the step’s system', async () => {
    const crew = new Crew({ tasks: tasks(), summarize: { llm: summarizer() } });
    const flow = createFlow({ name: 'f', initialState: {} }).start(
      'brief',
      async ({ kickoff }) => (await kickoff(crew)).summary,
    );
    const out = await flow.kickoff();
    expect(out.status).toBe('completed');
    expect(out.outputs.brief).toBe('summary of 2 outputs');
  });

  it('is off by default: summary is the count line and no summary node runs', async () => {
    const out = await new Crew({ tasks: tasks() }).kickoff();
    expect(out.summary).toBe('2 completed, 0 failed, 0 blocked');
    expect(out.nodes.map((n) => n.nodeId)).toEqual(['research', 'write']);
  });

  it('runs after a graph or a parallel crew too, reading every completed output', async () => {
    for (const process of ['graph', 'parallel'] as const) {
      const out = await new Crew({ tasks: tasks(), process, summarize: { llm: summarizer() } }).kickoff();
      expect(out.summary).toBe('summary of 2 outputs');
      expect(out.nodes.at(-1)?.nodeId).toBe('summary');
    }
  });

  it('a failed summary leaves the tasks’ work: status partial, failures.summary, the count line', async () => {
    const llm = createScriptedModel([Object.assign(new Error('bad request'), { status: 400 })]);
    const out = await new Crew({ tasks: tasks(), summarize: { llm } }).kickoff();
    expect(out.status).toBe('partial');
    expect(out.failures.summary?.message).toMatch(/bad request/);
    expect(out.tasksOutput).toHaveLength(2);
    expect(out.summary).toBe('2 completed, 1 failed, 0 blocked');
  });

  it('is within the budget: a summary the budget cannot pay fails with budget_exceeded', async () => {
    const worker = createScriptedModel(() => ({ text: 'ok', usage: { inputTokens: 5, outputTokens: 5 } }));
    const llm = summarizer();
    const out = await new Crew({
      tasks: tasks(worker),
      budget: { maxTokens: 20 },
      summarize: { llm },
    }).kickoff();
    expect(llm.calls).toHaveLength(0);
    expect(out.failures.summary?.code).toBe('budget_exceeded');
    expect(out.status).toBe('partial');
  });

  it('does not run when no task completed', async () => {
    const failing = createScriptedModel([new Error('down')]);
    const llm = summarizer();
    const out = await new Crew({
      tasks: [
        new Task({
          name: 'only',
          description: 'x',
          agent: new Agent({ role: 'W', llm: failing, maxRetries: 0 }),
        }),
      ],
      summarize: { llm },
    }).kickoff();
    expect(out.status).toBe('failed');
    expect(llm.calls).toHaveLength(0);
    expect(out.nodes.map((n) => n.nodeId)).toEqual(['only']);
  });

  it('an abort during the summary stops its call and rejects with the tasks’ work as partial', async () => {
    const gate = gatedModel();
    const crew = new Crew({ tasks: tasks(), summarize: { llm: gate.model } });
    const controller = new AbortController();
    const result = crew.kickoff({ signal: controller.signal });
    await gate.whenCalled("Summarize the crew's results in one answer");
    controller.abort(new Error('enough'));
    const error = await result.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(RunAbortedError);
    const partial = (error as RunAbortedError<Awaited<typeof result>>).partial;
    expect(partial.tasksOutput.map((t) => t.name)).toEqual(['research', 'write']);
    expect(gate.model.aborted).toHaveLength(1);
  });

  it('refuses summarize on a crew with a task named summary, and a summarize that is not an object', () => {
    const own = new Task({
      name: 'summary',
      description: 'x',
      agent: new Agent({ role: 'W', llm: echoModel() }),
    });
    expect(() => new Crew({ tasks: [own], summarize: { llm: echoModel() } })).toThrow(
      /no task named "summary"/,
    );
    expect(() => new Crew({ tasks: tasks(), summarize: 'yes' as never })).toThrow(
      expect.objectContaining({ code: 'invalid_option' }),
    );
  });
});
