import { describe, expect, it } from 'vitest';
import { similarity } from '../../src/index.js';
import type { EmbeddingModel } from '../../src/types.js';
import { scoreInput } from '../fixtures/evals/scorers/score-input.js';

/** An embedding model answering from a table of vectors (reporting `usage` unless null), recording each call's texts. */
function fakeEmbed(
  vectors: Record<string, number[]>,
  usage: { tokens?: number; calls?: number } | null = { tokens: 7 },
): EmbeddingModel & { calls: string[][] } {
  const calls: string[][] = [];
  return {
    calls,
    async embed(texts) {
      calls.push(texts);
      const embeddings = texts.map((text) => vectors[text] ?? [0, 0, 1]);
      return usage === null ? { embeddings } : { embeddings, usage };
    },
  };
}

describe('similarity', () => {
  it("scores the cosine of the output's and expected text's embeddings, from one call", async () => {
    const embed = fakeEmbed({ 'a cat': [1, 0, 0], 'a kitten': [3, 4, 0] });
    const score = await similarity({ embed }).score(scoreInput({ output: 'a cat', expected: 'a kitten' }));
    expect(score).toEqual({ score: 0.6, value: 0.6, reason: 'cosine similarity 0.600' });
    expect(embed.calls).toEqual([['a cat', 'a kitten']]);
  });

  it("spends the embedding call's tokens and calls as the judge's usage", async () => {
    const input = scoreInput({ output: 'a', expected: 'b' });
    await similarity({ embed: fakeEmbed({}, { tokens: 7 }) }).score(input);
    expect(input.calls).toEqual(['beforeCall', 'spend']);
    expect(input.spent).toEqual([{ inputTokens: 7, outputTokens: 0, totalTokens: 7, calls: 1 }]);
    const batched = scoreInput({ output: 'a', expected: 'b' });
    await similarity({ embed: fakeEmbed({}, { tokens: 12, calls: 2 }) }).score(batched);
    expect(batched.spent).toEqual([{ inputTokens: 12, outputTokens: 0, totalTokens: 12, calls: 2 }]);
    const silent = scoreInput({ output: 'a', expected: 'b' });
    await similarity({ embed: fakeEmbed({}, null) }).score(silent);
    expect(silent.spent).toEqual([{ inputTokens: 0, outputTokens: 0, totalTokens: 0, calls: 1 }]);
  });

  it('clamps an opposite embedding to 0, keeping the cosine as its value', async () => {
    const embed = fakeEmbed({ yes: [1, 1], no: [-1, -1] });
    const score = await similarity({ embed }).score(scoreInput({ output: 'yes', expected: 'no' }));
    expect(score.score).toBe(0);
    expect(score.value).toBeCloseTo(-1, 10);
  });

  it('embeds an expected value that is not text as its JSON', async () => {
    const embed = fakeEmbed({});
    await similarity({ embed }).score(scoreInput({ output: { b: 1, a: 2 }, expected: { a: 2, b: 1 } }));
    expect(embed.calls).toEqual([['{"b":1,"a":2}', '{"a":2,"b":1}']]);
  });

  it('cannot score without an expected output, and then makes no call', async () => {
    const embed = fakeEmbed({});
    const input = scoreInput({ output: 'a' });
    expect(await similarity({ embed, name: 'close' }).score(input)).toEqual({
      score: 0,
      error: {
        code: 'scorer_failed',
        message: 'Scorer "close": no expected output to compare with (scorer_failed)',
      },
    });
    expect(embed.calls).toEqual([]);
    expect(input.calls).toEqual([]);
  });

  it('gives scorer_failed for an embedding model that throws or answers with no usable vectors', async () => {
    const failing: EmbeddingModel = {
      embed: async () => {
        throw new Error('embedding service down');
      },
    };
    const input = scoreInput({ output: 'a', expected: 'b' });
    expect(await similarity({ embed: failing }).score(input)).toMatchObject({
      score: 0,
      error: {
        code: 'scorer_failed',
        message: 'Scorer "similarity": embedding service down (scorer_failed)',
      },
    });
    expect(input.spent).toEqual([{ inputTokens: 0, outputTokens: 0, totalTokens: 0, calls: 1 }]);
    const ragged = fakeEmbed({ a: [1, 0], b: [1, 0, 0] });
    expect((await similarity({ embed: ragged }).score(input)).error?.message).toMatch(
      /did not give two vectors of numbers of one length/,
    );
    const zero = fakeEmbed({ a: [0, 0], b: [1, 0] });
    expect((await similarity({ embed: zero }).score(input)).error?.message).toMatch(
      /an embedding is all zeros/,
    );
  });

  it('lets a budget stop propagate without embedding, and refuses a missing embedding model', async () => {
    const embed = fakeEmbed({});
    await expect(
      similarity({ embed }).score(scoreInput({ output: 'a', expected: 'b', budgetSpent: true })),
    ).rejects.toMatchObject({ code: 'budget_exceeded' });
    expect(embed.calls).toEqual([]);
    expect(() => similarity({} as never)).toThrow(/similarity: option "embed" must be an embedding model/);
  });
});
