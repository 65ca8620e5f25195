import { describe, expect, it } from 'vitest';
import { runScorer } from '../../src/evals/to-scorer.js';
import type { ScoreInput, Scorer, ScorerLike } from '../../src/index.js';
import { toScorer } from '../../src/index.js';

/** A score input for the run's output `text`. */
function inputOf(text: string): ScoreInput {
  return {
    output: text,
    text,
    expected: undefined,
    inputs: {},
    run: { kind: 'flow', result: {} as never },
    signal: new AbortController().signal,
    spend: () => undefined,
    beforeCall: () => undefined,
  };
}

const scoreOf = (like: ScorerLike) => toScorer(like, 'mine').score(inputOf('hello'));

describe('toScorer', () => {
  it('keeps a Scorer object as it is, its name too', () => {
    const scorer: Scorer = { name: 'own', level: 'node', score: () => ({ score: 1 }) };
    expect(toScorer(scorer, 'other')).toBe(scorer);
  });

  it('wraps a function as a run-level scorer named as told', () => {
    const scorer = toScorer(() => 1, 'mine');
    expect(scorer.name).toBe('mine');
    expect(scorer.level).toBe('run');
  });

  it('reads a number from 0 to 1, a boolean and a { score, reason, value }', async () => {
    expect(await scoreOf(() => 0.25)).toEqual({ score: 0.25 });
    expect(await scoreOf(({ text }) => text === 'hello')).toEqual({ score: 1 });
    expect(await scoreOf(() => false)).toEqual({ score: 0 });
    expect(await scoreOf(async () => ({ score: 0.7, reason: 'close', value: 7 }))).toEqual({
      score: 0.7,
      reason: 'close',
      value: 7,
    });
  });

  it.each([
    ['NaN', () => Number.NaN, 'NaN'],
    ['1.5', () => 1.5, '1.5'],
    ['a text', () => 'good' as never, '"good"'],
    ['a score out of range', () => ({ score: -1 }), 'its score -1'],
  ])('gives a scorer_failed score of 0 for %s', async (_, like, shown) => {
    const score = await scoreOf(like as ScorerLike);
    expect(score.score).toBe(0);
    expect(score.error?.code).toBe('scorer_failed');
    expect(score.error?.message).toContain('Scorer "mine"');
    expect(score.error?.message).toContain(shown);
  });

  it('gives a scorer_failed score for a throw and for a rejection, with what was thrown', async () => {
    const thrown = await scoreOf(() => {
      throw new Error('no judge');
    });
    expect(thrown).toEqual({
      score: 0,
      error: { code: 'scorer_failed', message: 'Scorer "mine": it threw: no judge (scorer_failed)' },
    });
    const rejected = await scoreOf(() => Promise.reject(new Error('judge down')));
    expect(rejected.error?.message).toContain('it threw: judge down');
  });
});

describe('runScorer', () => {
  it('turns a Scorer object that throws into a scorer_failed score, naming the node', async () => {
    const scorer: Scorer = {
      name: 'strict',
      level: 'node',
      score: () => {
        throw new TypeError('boom');
      },
    };
    const score = await runScorer(scorer, { ...inputOf('x'), node: 'research' });
    expect(score).toEqual({
      score: 0,
      error: {
        code: 'scorer_failed',
        message: 'Scorer "strict" on "research": it threw: boom (scorer_failed)',
      },
    });
  });

  it('passes a Scorer object’s own error through with its score', async () => {
    const scorer: Scorer = {
      name: 'judge',
      score: () => ({ score: 0, error: { code: 'scorer_failed', message: 'no score in the reply' } }),
    };
    expect(await runScorer(scorer, inputOf('x'))).toEqual({
      score: 0,
      error: { code: 'scorer_failed', message: 'no score in the reply' },
    });
  });
});
