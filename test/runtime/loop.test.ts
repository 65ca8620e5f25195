import { describe, expect, it } from 'vitest';
import { parseVerdict } from '../../src/actors/judge.js';
import { Agent, Crew, JudgeError, type Llm, Task } from '../../src/index.js';
import { createScriptedModel } from '../../src/testing.js';
import { echoModel } from '../helpers.js';

function loopCrew(judge: Llm, maxIterations?: number) {
  let draftNo = 0;
  const llm = createScriptedModel((r) => {
    if (r.prompt.endsWith('Task: draft')) {
      draftNo += 1;
      return `draft ${draftNo}`;
    }
    return `polished ${draftNo}`;
  });
  const writer = new Agent({ role: 'Writer', llm });
  const draft = new Task({ name: 'draft', description: 'draft', agent: writer });
  const polish = new Task({ name: 'polish', description: 'polish', agent: writer });
  const crew = new Crew({
    tasks: [draft, polish],
    process: 'loop',
    loop: {
      condition: 'the release is ready',
      judge,
      ...(maxIterations === undefined ? {} : { maxIterations }),
    },
  });
  return { llm, crew, draft, polish };
}

describe('loop process', () => {
  it('stops on the second YES-judged iteration with maxIterations 5', async () => {
    const judge = createScriptedModel(['NO, needs work', '  yes. ship it']);
    const { crew, polish } = loopCrew(judge, 5);
    const out = await crew.kickoff();
    expect(out.metadata).toMatchObject({ iterations: 2, conditionMet: true });
    expect(out.metadata.verdicts).toEqual([
      { iteration: 1, verdict: 'no', reply: 'NO, needs work' },
      { iteration: 2, verdict: 'yes', reply: '  yes. ship it' },
    ]);
    expect(out.nodes.map((n) => n.nodeId)).toEqual(['draft#1', 'polish#1', 'draft#2', 'polish#2']);
    expect(out.raw).toBe('polished 2');
    expect(out.output).toBe('polished 2');
    expect(out.metadata.leaves).toEqual(['polish#2']);
    expect(out.outputOf(polish)?.raw).toBe('polished 2');
    expect(judge.calls.map((c) => c.context)).toEqual(['polished 1', 'polished 2']);
    expect(judge.calls[0]?.prompt).toContain('Condition: the release is ready');
  });

  it('runs exactly maxIterations when the condition is never met, and completes', async () => {
    const judge = createScriptedModel(() => 'No');
    const { crew, llm } = loopCrew(judge, 3);
    const out = await crew.kickoff();
    expect(out.status).toBe('completed');
    expect(out.metadata).toMatchObject({ iterations: 3, conditionMet: false });
    expect(judge.calls).toHaveLength(3);
    expect(llm.calls).toHaveLength(6);
  });

  it('defaults to 3 iterations', async () => {
    const { crew } = loopCrew(() => 'no');
    expect((await crew.kickoff()).metadata.iterations).toBe(3);
  });

  it('feeds the first task of iteration 2 the final output of iteration 1', async () => {
    const judge = createScriptedModel(['no', 'yes']);
    const { crew, llm } = loopCrew(judge);
    await crew.kickoff();
    expect(llm.calls.map((c) => c.context)).toEqual(['', 'draft 1', 'polished 1', 'draft 2']);
  });

  it('reads "no, don\'t stop" as NO, and only a first word of YES or NO at all', () => {
    expect(parseVerdict("no, don't stop")).toBe('no');
    expect(parseVerdict('YES')).toBe('yes');
    expect(parseVerdict('\n yes!')).toBe('yes');
    expect(parseVerdict('maybe')).toBeUndefined();
    expect(parseVerdict('Yesterday it was fine')).toBeUndefined();
    expect(parseVerdict('I think yes')).toBeUndefined();
    expect(parseVerdict('stop, the answer is no')).toBeUndefined();
  });

  it('does not end the loop on a reply that merely contains a stop word', async () => {
    const { crew } = loopCrew(createScriptedModel(["no, don't stop yet", 'NO', 'no: stop is not warranted']));
    const out = await crew.kickoff();
    expect(out.metadata).toMatchObject({ iterations: 3, conditionMet: false });
  });

  it('rejects the run with judge_unparseable quoting a reply like "maybe"', async () => {
    const { crew } = loopCrew(createScriptedModel(['maybe']));
    const error = await crew.kickoff().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JudgeError);
    expect((error as Error).message).toBe(
      'Judge\'s reply after iteration 1 does not start with YES or NO: "maybe" (judge_unparseable)',
    );
  });

  it('ends without a verdict when a task fails for good, blocking the rest of the iteration', async () => {
    const judge = createScriptedModel(['no']);
    let calls = 0;
    const flaky = new Agent({
      role: 'Writer',
      maxRetries: 0,
      llm: (prompt) => {
        calls += 1;
        if (calls === 3) throw new Error('broke in iteration 2');
        return prompt.slice(-5);
      },
    });
    const crew = new Crew({
      tasks: [
        new Task({ name: 'a', description: 'a', agent: flaky }),
        new Task({ name: 'b', description: 'b', agent: flaky }),
      ],
      process: 'loop',
      loop: { condition: 'done', judge },
    });
    const out = await crew.kickoff();
    expect(out.status).toBe('partial');
    expect(out.errors).toEqual({ 'a#2': 'broke in iteration 2' });
    expect(out.metadata.blocked).toEqual(['b#2']);
    expect(out.metadata).toMatchObject({ iterations: 2, conditionMet: false });
    expect(judge.calls).toHaveLength(1);
  });

  it('refuses a loop crew without a loop option or with a bad one', () => {
    const llm = echoModel();
    const tasks = [new Task({ description: 'x', agent: new Agent({ role: 'W', llm }) })];
    expect(() => new Crew({ tasks, process: 'loop' })).toThrow(
      expect.objectContaining({
        code: 'invalid_option',
        message:
          'Crew: option "loop" must be { condition, judge, maxIterations? }, got nothing (undefined) (invalid_option)',
      }),
    );
    expect(
      () => new Crew({ tasks, process: 'loop', loop: { condition: 'c', judge: llm, maxIterations: 0 } }),
    ).toThrow(/maxIterations/);
    expect(() => new Crew({ tasks, process: 'loop', loop: { condition: '', judge: llm } })).toThrow(
      /condition/,
    );
  });
});
