import { describe, expect, it } from 'vitest';
import {
  Agent,
  Crew,
  ModelResponseError,
  RunAbortedError,
  type StatecrewEvent,
  Task,
} from '../../src/index.js';
import { createScriptedModel } from '../../src/testing.js';
import { echoModel } from '../helpers.js';

function chain(llm: ConstructorParameters<typeof Agent>[0]['llm'], options: { maxRetries?: number } = {}) {
  // No backoff here: test/runtime/retries.test.ts covers the delays on a manual clock.
  const worker = new Agent({ role: 'Worker', llm, retryDelayMs: 0, ...options });
  const tasks = ['a', 'b', 'c'].map((name) => new Task({ name, description: `do ${name}`, agent: worker }));
  return { worker, tasks, crew: new Crew({ tasks }) };
}

describe('failures and retries', () => {
  it('retries a failed attempt through failed → ready and completes', async () => {
    let calls = 0;
    const llm = createScriptedModel((request) => {
      calls += 1;
      return calls === 2 ? new Error('rate limited') : `ok ${request.prompt.slice(-1)}`;
    });
    const { crew } = chain(llm);
    const run = crew.run();
    const events: StatecrewEvent[] = [];
    run.events$.subscribe((e) => events.push(e));
    const out = await run.result;
    expect(out.status).toBe('completed');
    expect(out.nodes.map((n) => [n.nodeId, n.attempts])).toEqual([
      ['a', 1],
      ['b', 2],
      ['c', 1],
    ]);
    expect(out.errors).toEqual({});
    const forB = events.filter((e) => 'nodeId' in e && e.nodeId === 'b').map((e) => e.type);
    expect(forB).toEqual([
      'node.ready',
      'node.started',
      'model.call',
      'node.failed',
      'node.retrying',
      'node.ready',
      'node.started',
      'model.call',
      'node.completed',
    ]);
    expect(events.find((e) => e.type === 'node.failed')).toMatchObject({
      error: 'rate limited',
      willRetry: true,
    });
  });

  it('fails a task after 1 + maxRetries attempts (default 2 retries) and blocks the later tasks', async () => {
    const llm = createScriptedModel((request) =>
      request.prompt.endsWith('do b') ? new Error('model down') : 'fine',
    );
    const { crew } = chain(llm);
    const out = await crew.kickoff();
    expect(llm.calls.filter((c) => c.prompt.endsWith('do b'))).toHaveLength(3);
    expect(out.status).toBe('partial');
    expect(out.errors).toEqual({ b: 'model down' });
    expect(out.metadata.blocked).toEqual(['c']);
    expect(out.nodes.map((n) => [n.nodeId, n.status, n.attempts])).toEqual([
      ['a', 'completed', 1],
      ['b', 'failed', 3],
    ]);
    expect(out.executionLog).toEqual([
      { nodeId: 'a', status: 'completed', durationMs: expect.any(Number) },
      { nodeId: 'b', status: 'failed', durationMs: expect.any(Number), error: 'model down' },
    ]);
    expect(out.raw).toBe('fine');
    expect(out.output).toEqual({});
    expect(out.metadata.leaves).toEqual([]);
  });

  it('takes the task’s maxRetries over the agent’s', async () => {
    const llm = createScriptedModel(() => new Error('nope'));
    const worker = new Agent({ role: 'Worker', llm, maxRetries: 4, retryDelayMs: 0 });
    const once = new Task({ name: 'once', description: 'x', agent: worker, maxRetries: 0 });
    const out = await new Crew({ tasks: [once] }).kickoff();
    expect(out.status).toBe('failed');
    expect(llm.calls).toHaveLength(1);
    const agentDefault = createScriptedModel(() => new Error('nope'));
    await new Crew({
      tasks: [
        new Task({
          description: 'x',
          agent: new Agent({ role: 'W', llm: agentDefault, maxRetries: 1, retryDelayMs: 0 }),
        }),
      ],
    }).kickoff();
    expect(agentDefault.calls).toHaveLength(2);
  });

  it('never retries a non-retryable StatecrewError', async () => {
    const calls: string[] = [];
    const policy = (prompt: string) => {
      calls.push(prompt);
      return 42 as unknown as string;
    };
    const { crew } = chain(policy);
    const out = await crew.kickoff();
    expect(calls).toHaveLength(1);
    expect(out.status).toBe('failed');
    expect(out.errors.a).toBe(new ModelResponseError('Worker', 42).message);
    expect(out.errors.a).toMatch(/\(invalid_model_response\)$/);
    expect(out.metadata.blocked).toEqual(['b', 'c']);
  });

  it('aborts in-flight model calls and rejects with aborted, the reason as cause and the completed task kept', async () => {
    const llm = createScriptedModel((request) =>
      request.prompt.endsWith('do b') ? () => new Promise<string>(() => {}) : 'fine',
    );
    const { crew } = chain(llm);
    const controller = new AbortController();
    const run = crew.run({ signal: controller.signal });
    const types: string[] = [];
    let completed = false;
    run.events$.subscribe({ next: (e) => types.push(e.type), complete: () => (completed = true) });
    await new Promise<void>((resolve) => {
      run.events$.subscribe((e) => e.type === 'node.started' && e.nodeId === 'b' && resolve());
    });
    const reason = new Error('user cancelled');
    controller.abort(reason);
    const error = await run.result.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(RunAbortedError);
    const aborted = error as RunAbortedError<Awaited<typeof run.result>>;
    expect(aborted.code).toBe('aborted');
    expect(aborted.cause).toBe(reason);
    expect(aborted.message).toContain('user cancelled');
    expect(aborted.partial.status).toBe('partial');
    expect(aborted.partial.tasksOutput.map((t) => [t.name, t.raw])).toEqual([['a', 'fine']]);
    expect(aborted.partial.nodeResults).toEqual({ a: 'fine' });
    expect(aborted.partial.raw).toBe('fine');
    expect(llm.aborted.map((c) => c.prompt.slice(-4))).toEqual(['do b']);
    expect(llm.calls).toHaveLength(2);
    expect(completed).toBe(true);
    expect(types.at(-1)).toBe('run.failed');
    expect(run.actor.getSnapshot().value).toBe('aborted');
  });

  it('rejects at once, before any call, when the signal is already aborted', async () => {
    const llm = echoModel();
    const { crew } = chain(llm);
    const controller = new AbortController();
    controller.abort('too late');
    await expect(crew.kickoff({ signal: controller.signal })).rejects.toMatchObject({
      code: 'aborted',
      cause: 'too late',
      partial: { status: 'failed', tasksOutput: [], nodes: [] },
    });
    expect(llm.calls).toHaveLength(0);
  });
});
