import { describe, expect, it } from 'vitest';
import { type AttemptHooks, runTaskAttempt } from '../../src/actors/task-attempt.js';
import { Agent, type Policy } from '../../src/index.js';
import type { Failure, Usage } from '../../src/types.js';

/** Hooks that keep every model call an attempt reports, and the turns it waited for. */
function recordingHooks(extra: Partial<AttemptHooks> = {}) {
  const calls: { nodeId: string; attempt: number; usage: Usage; failure?: Failure }[] = [];
  let turns = 0;
  const hooks: AttemptHooks = {
    now: () => 1_000,
    onModelCall: (nodeId, attempt, usage, _durationMs, failure) =>
      calls.push(failure === undefined ? { nodeId, attempt, usage } : { nodeId, attempt, usage, failure }),
    onToolCall: () => {},
    waitTurn: async () => {
      turns += 1;
    },
    ...extra,
  };
  return { hooks, calls, turns: () => turns };
}

/** An attempt spec of task `t` for `agent`, reading `context`, with nothing to check and no time limit. */
function specOf(agent: Agent, context = 'ctx', feedback?: string) {
  return {
    nodeId: 't',
    name: 't',
    description: 'say it',
    expectedOutput: 'a word',
    context,
    agent,
    outputSchema: undefined,
    guardrail: undefined,
    timeoutMs: undefined,
    ...(feedback === undefined ? {} : { feedback }),
  };
}

const signal = () => new AbortController().signal;

describe('a task attempt that is one policy call', () => {
  it('completes with the policy text, given the prompt and context, and reports one call', async () => {
    const seen: [string, string][] = [];
    const policy: Policy = (prompt, context) => {
      seen.push([prompt, context]);
      return `${context}!`;
    };
    const { hooks, calls } = recordingHooks();
    const outcome = await runTaskAttempt(specOf(new Agent({ role: 'W', llm: policy })), 2, signal(), hooks);
    expect(outcome).toEqual({ ok: true, output: { raw: 'ctx!' }, finishedAt: 1_000 });
    expect(seen[0]?.[0]).toContain('say it');
    expect(seen[0]?.[1]).toBe('ctx');
    expect(calls).toEqual([
      { nodeId: 't', attempt: 2, usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0, calls: 1 } },
    ]);
  });

  it('tells the policy why the last answer was rejected', async () => {
    let asked = '';
    const policy: Policy = (prompt) => {
      asked = prompt;
      return 'ok';
    };
    const { hooks } = recordingHooks();
    await runTaskAttempt(specOf(new Agent({ role: 'W', llm: policy }), '', 'too short'), 2, signal(), hooks);
    expect(asked).toContain('Feedback: your previous answer was rejected: too short');
  });

  it('fails the attempt, reporting a failed call, when the policy throws before it answers', async () => {
    const policy: Policy = () => {
      throw new Error('boom');
    };
    const { hooks, calls } = recordingHooks();
    const outcome = await runTaskAttempt(specOf(new Agent({ role: 'W', llm: policy })), 1, signal(), hooks);
    expect(outcome).toMatchObject({ ok: false, error: { message: 'boom' } });
    expect(calls).toHaveLength(1);
    expect(calls[0]?.usage.calls).toBe(1);
    expect(calls[0]?.failure?.message).toBe('boom');
  });

  it('fails with invalid_model_response, reporting a failed call, when the policy answers no text', async () => {
    const policy = (async () => 42) as unknown as Policy;
    const { hooks, calls } = recordingHooks();
    const outcome = await runTaskAttempt(specOf(new Agent({ role: 'W', llm: policy })), 1, signal(), hooks);
    expect(outcome).toMatchObject({ ok: false, error: { code: 'invalid_model_response' } });
    expect(calls[0]?.failure?.code).toBe('invalid_model_response');
  });

  it('fails without a call when the budget refuses it (the policy is never asked)', async () => {
    let asked = 0;
    const policy: Policy = () => {
      asked += 1;
      return 'x';
    };
    const refused = Object.assign(new Error('spent'), { code: 'budget_exceeded' });
    const { hooks, calls } = recordingHooks({
      beforeModelCall: () => {
        throw refused;
      },
    });
    const outcome = await runTaskAttempt(specOf(new Agent({ role: 'W', llm: policy })), 1, signal(), hooks);
    expect(outcome).toMatchObject({ ok: false });
    expect(asked).toBe(0);
    expect(calls).toEqual([]);
  });

  it('rejects with the reason of a signal that aborted before the call, asking nothing', async () => {
    let asked = 0;
    const policy: Policy = () => {
      asked += 1;
      return 'x';
    };
    const controller = new AbortController();
    const reason = new Error('stopped');
    controller.abort(reason);
    const { hooks, calls } = recordingHooks();
    const attempt = runTaskAttempt(
      specOf(new Agent({ role: 'W', llm: policy })),
      1,
      controller.signal,
      hooks,
    );
    await expect(attempt).rejects.toBe(reason);
    expect(asked).toBe(0);
    expect(calls).toEqual([]);
  });

  it('waits for its turn first when the agent is rate-limited, then answers the same', async () => {
    const policy: Policy = (_prompt, context) => `${context}.`;
    const limited = recordingHooks();
    const agent = new Agent({ role: 'W', llm: policy, maxRpm: 1_000 });
    const outcome = await runTaskAttempt(specOf(agent), 1, signal(), limited.hooks);
    expect(outcome).toEqual({ ok: true, output: { raw: 'ctx.' }, finishedAt: 1_000 });
    expect(limited.turns()).toBe(1);
    const free = recordingHooks();
    await runTaskAttempt(specOf(new Agent({ role: 'W', llm: policy })), 1, signal(), free.hooks);
    expect(free.turns()).toBe(0);
  });
});
