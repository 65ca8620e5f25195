import { describe, expect, it } from 'vitest';
import { crewaiTestScorer, llmJudge } from '../../src/index.js';
import { createScriptedModel } from '../../src/testing.js';
import { scoreInput } from '../fixtures/evals/scorers/score-input.js';

const task = { description: 'Write a haiku about {topic}', expectedOutput: 'Three lines', agent: 'Poet' };

describe('llmJudge', () => {
  it('asks the judge with the rubric, inputs, task, expected output and output, and reads score and reason', async () => {
    const judge = createScriptedModel(['8 - clear and correct, one line too long']);
    const scorer = llmJudge({ model: judge, rubric: 'Is it a haiku?' });
    const input = scoreInput({
      output: 'Autumn moon rises',
      expected: 'a haiku',
      inputs: { topic: 'autumn' },
      node: 'write',
      task,
    });
    expect(await scorer.score(input)).toEqual({
      score: 0.8,
      value: 8,
      reason: 'clear and correct, one line too long',
    });
    const prompt = judge.calls[0]?.messages[0]?.content;
    expect(prompt).toBe(
      [
        'Score the output below against this rubric:\nIs it a haiku?',
        '',
        'Inputs: {"topic":"autumn"}',
        '',
        'Task: Write a haiku about {topic}',
        "Task's expected output: Three lines",
        'Agent: Poet',
        '',
        'Expected output:\na haiku',
        '',
        'Output to judge:\nAutumn moon rises',
        '',
        'Reply with a score from 1 to 10 as the first number you write, then the reason for it.',
      ].join('\n'),
    );
    expect(judge.calls[0]).toMatchObject({ agent: 'Judge', tools: [], context: '' });
  });

  it('leaves out the task and expected output when there are none, and scores on its own scale', async () => {
    const judge = createScriptedModel(['Score: 4/5. Faithful to the source.']);
    const scorer = llmJudge({ model: judge, rubric: 'Faithful?', scale: [1, 5], name: 'faithful' });
    expect(scorer.name).toBe('faithful');
    expect(await scorer.score(scoreInput({ output: 'A summary' }))).toEqual({
      score: 0.8,
      value: 4,
      reason: 'Faithful to the source.',
    });
    const prompt = judge.calls[0]?.messages[0]?.content ?? '';
    expect(prompt).not.toMatch(/Task:|Expected output:/);
    expect(prompt).toMatch(/a score from 1 to 5 as the first number/);
  });

  it("passes the judge's usage and cost to spend, after beforeCall", async () => {
    const judge = createScriptedModel([
      { text: '9', usage: { inputTokens: 120, outputTokens: 3, costUsd: 0.0021 } },
    ]);
    const input = scoreInput({ output: 'x' });
    await llmJudge({ model: judge, rubric: 'r' }).score(input);
    expect(input.calls).toEqual(['beforeCall', 'spend']);
    expect(input.spent).toEqual([
      { inputTokens: 120, outputTokens: 3, totalTokens: 123, calls: 1, costUsd: 0.0021 },
    ]);
  });

  it('prices a call its model reports no cost for with the price given', async () => {
    const judge = createScriptedModel([
      { text: '7', usage: { inputTokens: 1_000_000, outputTokens: 500_000 } },
    ]);
    const input = scoreInput({ output: 'x' });
    await llmJudge({ model: judge, rubric: 'r', price: { inputPerMTok: 0.15, outputPerMTok: 0.6 } }).score(
      input,
    );
    expect(input.spent[0]?.costUsd).toBeCloseTo(0.45, 10);
  });

  it('gives scorer_failed, quoting the reply, when the reply holds no number', async () => {
    const judge = createScriptedModel(['Looks fine to me.']);
    const input = scoreInput({ output: 'x', node: 'write' });
    expect(await llmJudge({ model: judge, rubric: 'r' }).score(input)).toEqual({
      score: 0,
      error: {
        code: 'scorer_failed',
        message: `Scorer "llmJudge" on "write": the judge's reply holds no score from 1 to 10: "Looks fine to me." (scorer_failed)`,
      },
    });
    expect(input.spent).toHaveLength(1); // the call was made, and counted
  });

  it('trims a long reply quoted in the error to 200 characters', async () => {
    const judge = createScriptedModel([`${'no score here '.repeat(40)}`]);
    const score = await llmJudge({ model: judge, rubric: 'r' }).score(scoreInput({ output: 'x' }));
    const quoted = /: "(.*)" \(scorer_failed\)$/.exec(score.error?.message ?? '')?.[1] ?? '';
    expect(quoted).toHaveLength(201);
    expect(quoted.endsWith('…')).toBe(true);
  });

  it('gives scorer_failed for a score outside the scale', async () => {
    const judge = createScriptedModel(['12, outstanding']);
    const score = await llmJudge({ model: judge, rubric: 'r' }).score(scoreInput({ output: 'x' }));
    expect(score).toMatchObject({ score: 0, error: { code: 'scorer_failed' } });
    expect(score.error?.message).toMatch(
      /the judge's score 12 is outside its scale 1 to 10: "12, outstanding"/,
    );
  });

  it('lets a budget stop from beforeCall propagate, without calling the judge', async () => {
    const judge = createScriptedModel(['9']);
    const input = scoreInput({ output: 'x', budgetSpent: true });
    await expect(llmJudge({ model: judge, rubric: 'r' }).score(input)).rejects.toMatchObject({
      code: 'budget_exceeded',
    });
    expect(judge.calls).toHaveLength(0);
    expect(input.spent).toEqual([]);
  });

  it('gives scorer_failed with the error of a judge that throws, its failed call counted', async () => {
    const judge = createScriptedModel([new Error('rate limited by the provider')]);
    const input = scoreInput({ output: 'x' });
    expect(await llmJudge({ model: judge, rubric: 'r' }).score(input)).toEqual({
      score: 0,
      error: {
        code: 'scorer_failed',
        message: 'Scorer "llmJudge": rate limited by the provider (scorer_failed)',
      },
    });
    expect(input.spent).toEqual([{ inputTokens: 0, outputTokens: 0, totalTokens: 0, calls: 1 }]);
  });

  it('rejects with the abort reason when aborted during the call, and does not call when aborted before', async () => {
    const controller = new AbortController();
    const judge = createScriptedModel(() => new Promise<string>(() => {}));
    const scoring = llmJudge({ model: judge, rubric: 'r' }).score(
      scoreInput({ output: 'x', signal: controller.signal }),
    );
    const reason = new Error('evaluation cancelled');
    controller.abort(reason);
    await expect(scoring).rejects.toBe(reason);
    expect(judge.aborted).toHaveLength(1);

    const later = createScriptedModel(['9']);
    const aborted = scoreInput({ output: 'x', signal: AbortSignal.abort(reason) });
    await expect(llmJudge({ model: later, rubric: 'r' }).score(aborted)).rejects.toBe(reason);
    expect(later.calls).toHaveLength(0);
    expect(aborted.calls).toEqual([]);
  });

  it('takes a policy function as the judge, its signal passed', async () => {
    let seen: AbortSignal | undefined;
    const policy = (prompt: string, _context: string, options: { signal: AbortSignal }) => {
      seen = options.signal;
      return prompt.includes('rubric:\nPolite?') ? '10 very polite' : '1';
    };
    const input = scoreInput({ output: 'Thank you!' });
    expect(await llmJudge({ model: policy, rubric: 'Polite?' }).score(input)).toEqual({
      score: 1,
      value: 10,
      reason: 'very polite',
    });
    expect(seen).toBe(input.signal);
    expect(input.spent).toEqual([{ inputTokens: 0, outputTokens: 0, totalTokens: 0, calls: 1 }]);
  });

  it('refuses bad options when built: no model, no rubric, a scale upside down', () => {
    expect(() => llmJudge({ rubric: 'r' } as never)).toThrow(
      /llmJudge: option "model" must be a model or a policy/,
    );
    expect(() => llmJudge({ model: createScriptedModel([]), rubric: ' ' })).toThrow(/option "rubric"/);
    expect(() => llmJudge({ model: createScriptedModel([]), rubric: 'r', scale: [10, 1] })).toThrow(
      /option "scale" must be \[min, max\], 0 ≤ min < max/,
    );
  });
});

describe('crewaiTestScorer', () => {
  it("is CrewAI's per-task judge: named quality, at node level, asked as CrewAI asks", async () => {
    const judge = createScriptedModel(['9 complete and well written']);
    const scorer = crewaiTestScorer({ model: judge });
    expect(scorer).toMatchObject({ name: 'quality', level: 'node' });
    const input = scoreInput({ output: 'Autumn moon rises', node: 'write', task });
    expect(await scorer.score(input)).toEqual({ score: 0.9, value: 9, reason: 'complete and well written' });
    const request = judge.calls[0];
    expect(request?.agent).toBe('Task Execution Evaluator');
    expect(request?.system).toMatch(
      /^You are Task Execution Evaluator\. Your goal is to evaluate the performance/,
    );
    expect(request?.prompt).toMatch(
      /^Based on the task description and the expected output, compare and evaluate the performance of the agents in the crew based on the Task Output they have performed using score from 1 to 10 evaluating on completion, quality, and overall performance\.\ntask_description: Write a haiku about \{topic\}\ntask_expected_output: Three lines\nagent: Poet\nTask Output: Autumn moon rises\n/,
    );
  });

  it('reads a JSON reply as CrewAI\'s judge gives it: {"quality": 8}', async () => {
    const judge = createScriptedModel([
      '{"quality": 8}',
      '```json\n{ "quality": 6.5, "reason": "misses a line" }\n```',
    ]);
    const scorer = crewaiTestScorer({ model: judge, name: 'crewai' });
    expect(scorer.name).toBe('crewai');
    expect(await scorer.score(scoreInput({ output: 'x', task }))).toEqual({ score: 0.8, value: 8 });
    expect(await scorer.score(scoreInput({ output: 'x', task }))).toEqual({
      score: 0.65,
      value: 6.5,
      reason: 'misses a line',
    });
  });

  it("names a flow step's node as the task when there is no crew task", async () => {
    const judge = createScriptedModel(['7']);
    await crewaiTestScorer({ model: judge }).score(
      scoreInput({ output: 'x', node: 'draft', expected: 'a draft' }),
    );
    expect(judge.calls[0]?.prompt).toMatch(
      /task_description: draft\ntask_expected_output: a draft\nagent: None\n/,
    );
  });

  it('refuses options it does not take', () => {
    expect(() => crewaiTestScorer({ model: createScriptedModel([]), level: 'run' } as never)).toThrow(
      /crewaiTestScorer: unknown option "level"/,
    );
  });
});
