import { describe, expect, it } from 'vitest';
import { Crew, Task } from '../../src/index.js';
import { createScriptedModel } from '../../src/testing.js';
import { agent } from '../helpers.js';

function chain(usage: { inputTokens: number; outputTokens: number; costUsd?: number }) {
  const llm = createScriptedModel(() => ({ text: 'ok', usage }));
  const writer = agent('W', llm);
  const tasks = ['a', 'b', 'c', 'd'].map((name) => new Task({ name, description: name, agent: writer }));
  return { llm, tasks };
}

describe('a run budget', () => {
  it('starts no model call once the tokens are spent: budget_exceeded, partial, the work done kept', async () => {
    const { llm, tasks } = chain({ inputTokens: 6, outputTokens: 4 });
    const out = await new Crew({ tasks, budget: { maxTokens: 15 } }).kickoff();
    expect(llm.calls).toHaveLength(2); // 10 tokens, then 20: the third call would start past the budget
    expect(out.status).toBe('partial');
    expect(out.tasksOutput.map((t) => t.name)).toEqual(['a', 'b']);
    expect(out.failures.c).toMatchObject({ code: 'budget_exceeded', retryable: false });
    expect(out.errors.c).toMatch(/20 tokens of 15/);
    expect(out.metadata.blocked).toEqual(['d']);
    expect(out.usage.totalTokens).toBe(20);
  });

  it('counts cost where the models report one, and a kickoff’s budget replaces the crew’s', async () => {
    const { llm, tasks } = chain({ inputTokens: 1, outputTokens: 1, costUsd: 0.01 });
    const crew = new Crew({ tasks, budget: { maxTokens: 1 } });
    const out = await crew.kickoff({ budget: { maxCostUsd: 0.025 } });
    expect(llm.calls).toHaveLength(3);
    expect(out.failures.d?.code).toBe('budget_exceeded');
  });

  it('refuses a limit that is not a positive number (invalid_option)', () => {
    const { tasks } = chain({ inputTokens: 1, outputTokens: 1 });
    expect(() => new Crew({ tasks, budget: { maxTokens: 0 } })).toThrow(/budget.maxTokens/);
    expect(() => new Crew({ tasks }).run({ budget: { maxCostUsd: -1 } })).toThrow(
      expect.objectContaining({ code: 'invalid_option' }),
    );
  });
});
