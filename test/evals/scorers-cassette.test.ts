import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createRecordReplay, llmJudge } from '../../src/index.js';
import { createScriptedModel } from '../../src/testing.js';
import type { Model } from '../../src/types.js';
import { scoreInput } from '../fixtures/evals/scorers/score-input.js';

/** The committed cassette: the scripted judge's replies below, as `createRecordReplay` records them. */
const CASSETTE = join(import.meta.dirname, '..', 'fixtures', 'evals', 'scorers', 'cassettes', 'judge.json');
const root = mkdtempSync(join(tmpdir(), 'statecrew-judge-cassette-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The judge's verdict on each answer, by the answer (so the order of the calls does not matter). */
const VERDICTS: Record<string, string> = {
  Paris: '9 - correct and to the point',
  Lyon: '3: a French city, but not the capital',
  'I do not know': '1 no answer given',
};

const scriptedJudge = () =>
  createScriptedModel((request) => {
    const answer = /Output to judge:\n(.*)\n/.exec(request.prompt)?.[1] ?? '';
    return { text: VERDICTS[answer] ?? 'no verdict', usage: { inputTokens: 60, outputTokens: 8 } };
  });

/** Each answer scored by `llmJudge` over `model`, with what each scoring spent. */
async function judged(model: Model, answers: readonly string[]) {
  const scorer = llmJudge({ model, rubric: 'Does the answer name the capital of France?' });
  const results = [];
  for (const answer of answers) {
    const input = scoreInput({ output: answer, inputs: { question: 'What is the capital of France?' } });
    results.push({ answer, score: await scorer.score(input), spent: input.spent });
  }
  return results;
}

describe('llmJudge over a cassette', () => {
  const answers = Object.keys(VERDICTS);

  it('records the judge once; the committed cassette is that recording, and replays the same scores', async () => {
    const recording = join(root, 'judge.json');
    const live = await judged(
      createRecordReplay(scriptedJudge(), { cassette: recording, mode: 'record' }),
      answers,
    );
    expect(live.map((r) => r.score)).toEqual([
      { score: 0.9, value: 9, reason: 'correct and to the point' },
      { score: 0.3, value: 3, reason: 'a French city, but not the capital' },
      { score: 0.1, value: 1, reason: 'no answer given' },
    ]);
    // STATECREW_RECORD=1 writes the committed cassette anew, after a change to the judge's prompt.
    if (process.env.STATECREW_RECORD === '1') copyFileSync(recording, CASSETTE);
    expect(readFileSync(CASSETTE, 'utf8')).toBe(readFileSync(recording, 'utf8'));

    const replayed = await judged(
      createRecordReplay(undefined, { cassette: CASSETTE, mode: 'replay' }),
      answers,
    );
    expect(replayed).toEqual(live);
  });

  it('replays by the question asked, not the order: each answer gets its own recorded score', async () => {
    const replay = createRecordReplay(undefined, { cassette: CASSETTE, mode: 'replay' });
    const reversed = await judged(replay, [...answers].reverse());
    expect(reversed.map((r) => [r.answer, r.score.value])).toEqual([
      ['I do not know', 1],
      ['Lyon', 3],
      ['Paris', 9],
    ]);
    expect(reversed[0]?.spent).toEqual([{ inputTokens: 60, outputTokens: 8, totalTokens: 68, calls: 1 }]);
  });

  it('gives scorer_failed, naming the cassette miss, for an answer the cassette never recorded', async () => {
    const replay = createRecordReplay(undefined, { cassette: CASSETTE, mode: 'replay' });
    const [result] = await judged(replay, ['Marseille']);
    expect(result?.score).toMatchObject({
      score: 0,
      error: { code: 'scorer_failed', message: expect.stringMatching(/cassette_miss/) },
    });
  });
});
