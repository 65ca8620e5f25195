import { afterEach, describe, expect, it, vi } from 'vitest';
import { type AttemptHooks, runTaskAttempt } from '../../src/actors/task-attempt.js';
import { Agent, Crew, type Policy, Task, TaskTimeoutError } from '../../src/index.js';

/** A policy that records the signal of every call and never answers, not even when aborted. */
function hangingPolicy() {
  const signals: AbortSignal[] = [];
  let called: () => void = () => {};
  const firstCall = new Promise<void>((resolve) => (called = resolve));
  const policy: Policy = (_prompt, _context, { signal }) => {
    signals.push(signal);
    called();
    return new Promise<string>(() => {});
  };
  return { policy, signals, firstCall };
}

const hooks: AttemptHooks = { now: Date.now, onModelCall: () => {}, onToolCall: () => {} };

function attemptSpec(agent: Agent, timeoutMs: number | undefined) {
  return {
    nodeId: 'slow',
    name: 'slow',
    description: 'take your time',
    expectedOutput: '',
    context: '',
    agent,
    outputSchema: undefined,
    guardrail: undefined,
    timeoutMs,
  };
}

describe('the signal a policy gets', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('aborts with task_timeout when a crew task runs past its timeoutMs', async () => {
    vi.useFakeTimers();
    const { policy, signals } = hangingPolicy();
    const agent = new Agent({ role: 'Slow', llm: policy, timeoutMs: 50, maxRetries: 0, retryDelayMs: 0 });
    const result = new Crew({
      tasks: [new Task({ name: 'slow', description: 'take your time', agent })],
    }).run().result;
    await vi.advanceTimersByTimeAsync(49);
    expect(signals).toHaveLength(1);
    expect(signals[0]?.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(signals[0]?.aborted).toBe(true);
    expect(signals[0]?.reason).toBeInstanceOf(TaskTimeoutError);
    expect(signals[0]?.reason).toMatchObject({ code: 'task_timeout' });
    const out = await result;
    expect(out.failures.slow).toMatchObject({ code: 'task_timeout', retryable: true });
  });

  it('aborts with task_timeout in one attempt, which settles even though the policy never does', async () => {
    vi.useFakeTimers();
    const { policy, signals } = hangingPolicy();
    const agent = new Agent({ role: 'Slow', llm: policy });
    const outcome = runTaskAttempt(attemptSpec(agent, 50), 1, new AbortController().signal, hooks);
    await vi.advanceTimersByTimeAsync(50);
    expect(signals[0]?.reason).toBeInstanceOf(TaskTimeoutError);
    await expect(outcome).resolves.toMatchObject({
      ok: false,
      error: { code: 'task_timeout', retryable: true },
    });
  });

  it("aborts with the run's reason when the run is aborted, with or without a time limit", async () => {
    for (const timeoutMs of [undefined, 60_000]) {
      const { policy, signals, firstCall } = hangingPolicy();
      const agent = new Agent({ role: 'Slow', llm: policy });
      const run = new AbortController();
      const outcome = runTaskAttempt(attemptSpec(agent, timeoutMs), 1, run.signal, hooks);
      await firstCall;
      const reason = new Error('user cancelled');
      run.abort(reason);
      expect(signals[0]?.aborted).toBe(true);
      expect(signals[0]?.reason).toBe(reason);
      // Under a time limit the attempt settles at once; without one the run settles on abort instead.
      if (timeoutMs !== undefined) await expect(outcome).rejects.toBe(reason);
    }
  });

  it('aborts when a crew run is aborted through its signal', async () => {
    const { policy, signals, firstCall } = hangingPolicy();
    const agent = new Agent({ role: 'Slow', llm: policy });
    const controller = new AbortController();
    const run = new Crew({ tasks: [new Task({ name: 'slow', description: 'wait', agent })] }).run({
      signal: controller.signal,
    });
    await firstCall;
    controller.abort(new Error('user cancelled'));
    await expect(run.result).rejects.toMatchObject({ code: 'aborted' });
    expect(signals[0]?.aborted).toBe(true);
  });

  it('is the signal given to Agent.execute: aborting its controller aborts the policy', async () => {
    const { policy, signals, firstCall } = hangingPolicy();
    const agent = new Agent({ role: 'Solo', llm: policy });
    const controller = new AbortController();
    const answer = agent.execute('wait', '', '', { signal: controller.signal });
    await firstCall;
    expect(signals[0]?.aborted).toBe(false);
    const reason = new Error('stop');
    controller.abort(reason);
    expect(signals[0]?.aborted).toBe(true);
    expect(signals[0]?.reason).toBe(reason);
    await expect(answer).rejects.toBe(reason);
  });
});
