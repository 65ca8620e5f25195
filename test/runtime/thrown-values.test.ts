import { describe, expect, it } from 'vitest';
import { converse, type Speaker } from '../../src/actors/conversation.js';
import { type JudgeScope, judgeIteration } from '../../src/actors/judge.js';
import { allocate, type ManagerLike, type ManagerScope, synthesize } from '../../src/actors/manager.js';
import { JudgeCallError, ManagerError } from '../../src/errors.js';
import {
  Agent,
  Crew,
  createFlow,
  type Llm,
  type ManagerFunctions,
  type Policy,
  StatecrewError,
  Task,
  type Tool,
  type ToolCallRecord,
} from '../../src/index.js';
import { createScriptedModel } from '../../src/testing.js';
import { echoModel } from '../helpers.js';

const rate = { code: 429, msg: 'rate' };
const rateText = '{"code":429,"msg":"rate"}';

/** Throws `value` as it is: the point of these tests is values that are not `Error`s. */
function thrower(value: unknown): () => never {
  return () => {
    throw value;
  };
}

function managerScope(manager: ManagerLike): ManagerScope {
  return {
    manager,
    workerRoles: ['Writer', 'Editor'],
    goal: 'a report',
    now: Date.now,
    taskAt: (index) => ({ nodeId: `t${index + 1}`, description: 'Write it', context: '' }),
    outputs: () => ['draft'],
    onCall: () => {},
    onDelegation: () => {},
    gate: {},
  };
}

function functionManager(overrides: Partial<ManagerFunctions>): ManagerFunctions {
  return { allocate: () => 'Writer', synthesize: () => 'done', ...overrides };
}

function judgeScope(judge: Llm): JudgeScope {
  return {
    judge,
    condition: 'it is ready',
    now: Date.now,
    latest: () => 'output',
    onVerdict: () => {},
    gate: {},
  };
}

const live = () => new AbortController().signal;

describe('a thrown non-Error keeps what it says', () => {
  it('records a tool that throws an object, a string or undefined with what it threw', async () => {
    const tools: Tool[] = [
      { name: 'object', description: 'throws an object', execute: thrower(rate) },
      { name: 'string', description: 'throws a string', execute: thrower('boom') },
      { name: 'nothing', description: 'throws undefined', execute: thrower(undefined) },
    ];
    const llm = createScriptedModel([
      { text: '', toolCalls: tools.map((t, i) => ({ id: String(i), name: t.name, args: {} })) },
      'answered',
    ]);
    const speaker: Speaker = { role: 'R', llm, tools, maxIter: 3 };
    const records: ToolCallRecord[] = [];
    const text = await converse(speaker, { text: 'p', system: '', task: 'p' }, '', live(), {
      now: Date.now,
      onToolCall: (r) => records.push(r),
    });
    expect(text).toBe('answered');
    expect(records.map((r) => r.error)).toEqual([rateText, 'boom', 'undefined']);
    expect(llm.calls[1]?.messages.filter((m) => m.role === 'tool').map((m) => m.content)).toEqual([
      `Error: ${rateText}`,
      'Error: boom',
      'Error: undefined',
    ]);
  });

  it('fails a task whose policy throws an object or a string with that text', async () => {
    const cases: [unknown, string][] = [
      [rate, rateText],
      ['boom', 'boom'],
      [undefined, 'undefined'],
    ];
    for (const [thrown, message] of cases) {
      const llm: Policy = thrower(thrown);
      const agent = new Agent({ role: 'Worker', llm, maxRetries: 0, retryDelayMs: 0 });
      const out = await new Crew({ tasks: [new Task({ name: 't', description: 'do it', agent })] }).kickoff();
      expect(out.status).toBe('failed');
      expect(out.errors.t).toBe(message);
      expect(out.failures.t).toEqual({ message, retryable: true });
    }
  });

  it('fails a task whose guardrail throws an object with its JSON', async () => {
    const agent = new Agent({ role: 'Worker', llm: () => 'text', maxRetries: 0 });
    const task = new Task({ name: 't', description: 'do it', agent, guardrail: thrower({ reason: 'bad' }) });
    const out = await new Crew({ tasks: [task] }).kickoff();
    expect(out.errors.t).toBe('{"reason":"bad"}');
  });

  it('fails a flow whose step throws an object with its JSON', async () => {
    const flow = createFlow({ name: 'thrown', initialState: {} }).start('first', thrower(rate));
    const out = await flow.kickoff();
    expect(out.status).toBe('failed');
    expect(out.errors.first).toBe(rateText);
  });
});

describe('a failing manager rejects with manager_failed', () => {
  it('wraps a function manager that throws while allocating, naming the task and keeping the cause', async () => {
    const failing = allocate(managerScope(functionManager({ allocate: thrower(rate) })), 0, live());
    await expect(failing).rejects.toBeInstanceOf(ManagerError);
    await expect(failing).rejects.toMatchObject({
      code: 'manager_failed',
      cause: rate,
      retryable: false,
      details: { phase: 'allocate', task: 't1' },
      message: `Manager failed to allocate for task "t1": ${rateText} (manager_failed)`,
    });
  });

  it('wraps a function manager that throws while synthesizing', async () => {
    const failing = synthesize(managerScope(functionManager({ synthesize: thrower('boom') })), live());
    await expect(failing).rejects.toMatchObject({
      code: 'manager_failed',
      cause: 'boom',
      details: { phase: 'synthesize' },
      message: 'Manager failed to synthesize: boom (manager_failed)',
    });
  });

  it('wraps an Agent manager whose model throws, in both phases', async () => {
    const cause = new Error('provider down');
    const manager = new Agent({ role: 'Manager', llm: createScriptedModel([cause, cause]), maxRetries: 0 });
    await expect(allocate(managerScope(manager), 1, live())).rejects.toMatchObject({
      code: 'manager_failed',
      cause,
      details: { phase: 'allocate', task: 't2' },
    });
    await expect(synthesize(managerScope(manager), live())).rejects.toMatchObject({
      code: 'manager_failed',
      cause,
    });
  });

  it('lets a StatecrewError through as it is: unknown_worker, script_exhausted', async () => {
    const chef = functionManager({ allocate: () => 'Chef' });
    await expect(allocate(managerScope(chef), 0, live())).rejects.toMatchObject({ code: 'unknown_worker' });
    const exhausted = new Agent({ role: 'Manager', llm: createScriptedModel([]) });
    await expect(synthesize(managerScope(exhausted), live())).rejects.toMatchObject({
      code: 'script_exhausted',
    });
  });

  it("rejects with the signal's reason untouched when the run was aborted", async () => {
    let fail: (error: unknown) => void = () => {};
    const late = functionManager({ allocate: () => new Promise<string>((_, reject) => (fail = reject)) });
    const controller = new AbortController();
    const reason = new Error('user cancelled');
    const pending = allocate(managerScope(late), 0, controller.signal);
    controller.abort(reason);
    fail(new Error('socket closed'));
    await expect(pending).rejects.toBe(reason);

    const stuck = new Agent({
      role: 'Manager',
      llm: createScriptedModel(() => () => new Promise<string>(() => {})),
    });
    const other = new AbortController();
    const asking = synthesize(managerScope(stuck), other.signal);
    other.abort(reason);
    await expect(asking).rejects.toBe(reason);
  });

  it('rejects a hierarchical crew run whose manager throws with manager_failed', async () => {
    const writer = new Agent({ role: 'Writer', llm: echoModel() });
    const crew = new Crew({
      process: 'hierarchical',
      agents: [writer],
      tasks: [new Task({ name: 'write', description: 'Write it' })],
      manager: functionManager({ allocate: thrower(rate) }),
    });
    const failed = crew.kickoff();
    await expect(failed).rejects.toBeInstanceOf(StatecrewError);
    await expect(failed).rejects.toMatchObject({ code: 'manager_failed', cause: rate });
  });
});

describe('a failing loop judge rejects with judge_failed', () => {
  it('wraps a judge that throws, keeping the iteration and the cause', async () => {
    const failing = judgeIteration(judgeScope(thrower(rate)), 2, live());
    await expect(failing).rejects.toBeInstanceOf(JudgeCallError);
    await expect(failing).rejects.toMatchObject({
      code: 'judge_failed',
      cause: rate,
      retryable: false,
      details: { iteration: 2 },
      message: `Judge failed after iteration 2: ${rateText} (judge_failed)`,
    });
  });

  it('keeps judge_unparseable for a reply that is neither YES nor NO', async () => {
    await expect(
      judgeIteration(
        judgeScope(() => 'maybe'),
        1,
        live(),
      ),
    ).rejects.toMatchObject({
      code: 'judge_unparseable',
    });
  });

  it("rejects with the signal's reason untouched when the run was aborted", async () => {
    const controller = new AbortController();
    const reason = new Error('user cancelled');
    const judge = createScriptedModel(() => () => new Promise<string>(() => {}));
    const pending = judgeIteration(judgeScope(judge), 1, controller.signal);
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
  });

  it('rejects a loop crew run whose judge throws with judge_failed', async () => {
    const writer = new Agent({ role: 'Writer', llm: echoModel() });
    const crew = new Crew({
      process: 'loop',
      tasks: [new Task({ name: 'draft', description: 'draft', agent: writer })],
      loop: { condition: 'it is ready', judge: thrower('judge offline'), maxIterations: 2 },
    });
    await expect(crew.kickoff()).rejects.toMatchObject({ code: 'judge_failed', cause: 'judge offline' });
  });
});
