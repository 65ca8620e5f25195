import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { exactMatch, includes, matchesSchema, regex } from '../../src/index.js';
import { scoreInput } from '../fixtures/evals/scorers/score-input.js';

describe('exactMatch', () => {
  it('scores 1 for texts equal once trimmed, 0 otherwise, saying what it expected', () => {
    const scorer = exactMatch();
    expect(scorer.score(scoreInput({ output: '  Paris\n', expected: 'Paris' }))).toEqual({
      score: 1,
      reason: 'equals the expected output',
    });
    expect(scorer.score(scoreInput({ output: 'Lyon', expected: 'Paris' }))).toEqual({
      score: 0,
      reason: 'expected "Paris", got "Lyon"',
    });
  });

  it('tells case apart unless asked not to', () => {
    const input = scoreInput({ output: 'PARIS', expected: 'paris' });
    expect(exactMatch().score(input)).toMatchObject({ score: 0 });
    expect(exactMatch({ caseSensitive: false }).score(input)).toMatchObject({ score: 1 });
  });

  it('compares values as JSON with sorted keys, reading an output that is JSON text', () => {
    const expected = { city: 'Paris', tags: ['a', 'b'], n: 2 };
    const scorer = exactMatch();
    expect(
      scorer.score(scoreInput({ output: { n: 2, tags: ['a', 'b'], city: 'Paris' }, expected })),
    ).toMatchObject({
      score: 1,
    });
    expect(
      scorer.score(scoreInput({ output: '{"tags":["a","b"],"n":2,"city":"Paris"}', expected })),
    ).toMatchObject({
      score: 1,
    });
    expect(scorer.score(scoreInput({ output: { n: 2, tags: ['b', 'a'], city: 'Paris' }, expected }))).toEqual(
      {
        score: 0,
        reason:
          'expected "{\\"city\\":\\"Paris\\",\\"n\\":2,\\"tags\\":[\\"a\\",\\"b\\"]}", got "{\\"city\\":\\"Paris\\",\\"n\\":2,\\"tags\\":[\\"b\\",\\"a\\"]}"',
      },
    );
  });

  it('cannot score without an expected output: 0 with a scorer_failed error naming the scorer and node', () => {
    const score = exactMatch({ name: 'exact', level: 'node' }).score(
      scoreInput({ output: 'x', node: 'write' }),
    );
    expect(score).toEqual({
      score: 0,
      error: {
        code: 'scorer_failed',
        message: 'Scorer "exact" on "write": no expected output to compare with (scorer_failed)',
      },
    });
  });
});

describe('scorer options', () => {
  it('names a scorer after its kind, scoring the run, unless told otherwise', () => {
    expect(exactMatch()).toMatchObject({ name: 'exactMatch', level: 'run' });
    expect(exactMatch()).not.toHaveProperty('nodes');
    expect(includes('x')).toMatchObject({ name: 'includes', level: 'run' });
    expect(regex('x')).toMatchObject({ name: 'regex' });
    expect(matchesSchema(z.string())).toMatchObject({ name: 'matchesSchema' });
    const scorer = regex(/x/, { name: 'has x', level: 'node', nodes: ['write'] });
    expect(scorer).toMatchObject({ name: 'has x', level: 'node', nodes: ['write'] });
  });

  it('refuses bad options when built (invalid_option): a level it does not know, nodes without node level, a typo', () => {
    expect(() => exactMatch({ level: 'task' as never })).toThrow(
      /exactMatch: option "level" must be 'run' or 'node'/,
    );
    expect(() => includes('x', { nodes: ['write'] })).toThrow(/option "nodes" .* needs level: 'node'/);
    expect(() => exactMatch({ case_sensitive: false } as never)).toThrow(
      expect.objectContaining({
        code: 'invalid_option',
        details: expect.objectContaining({ suggestion: 'caseSensitive' }),
      }),
    );
    expect(() => regex('x', { name: '' })).toThrow(/option "name" must be a non-empty string/);
  });
});

describe('includes', () => {
  it('scores the share of the texts found, naming the missing ones', () => {
    const scorer = includes(['Paris', 'France', 'Seine', 'Louvre']);
    const score = scorer.score(scoreInput({ output: 'Paris, on the Seine, in France.' }));
    expect(score).toEqual({ score: 0.75, reason: 'missing 1 of 4: "Louvre"' });
    expect(scorer.score(scoreInput({ output: 'Paris France Seine Louvre' }))).toEqual({
      score: 1,
      reason: 'contains all 4 expected texts',
    });
  });

  it('looks for the expected output by default, a text or a list, case-insensitive when asked', () => {
    const scorer = includes();
    expect(scorer.score(scoreInput({ output: 'It is Paris.', expected: 'Paris' }))).toMatchObject({
      score: 1,
    });
    expect(scorer.score(scoreInput({ output: 'it is paris', expected: ['Paris', 'city'] }))).toEqual({
      score: 0,
      reason: 'missing 2 of 2: "Paris", "city"',
    });
    const folded = includes(undefined, { caseSensitive: false });
    expect(folded.score(scoreInput({ output: 'it is paris', expected: ['Paris', 'city'] }))).toMatchObject({
      score: 0.5,
    });
  });

  it('cannot score when there is nothing to look for, and refuses an empty list when built', () => {
    expect(includes().score(scoreInput({ output: 'x' }))).toMatchObject({
      score: 0,
      error: {
        code: 'scorer_failed',
        message: expect.stringMatching(/no expected output: nothing to look for/),
      },
    });
    expect(includes().score(scoreInput({ output: 'x', expected: { a: 1 } }))).toMatchObject({
      error: { message: expect.stringMatching(/not a text or a list of texts/) },
    });
    expect(() => includes([])).toThrow(
      /includes: option "texts" must be a text or a non-empty list of texts/,
    );
  });
});

describe('regex', () => {
  it('scores 1 when the text matches, 0 when not, saying which', () => {
    const scorer = regex('\\d{4}-\\d{2}-\\d{2}');
    expect(scorer.score(scoreInput({ output: 'due 2026-12-07, firm' }))).toEqual({
      score: 1,
      reason: 'matches /\\d{4}-\\d{2}-\\d{2}/: "2026-12-07"',
    });
    expect(scorer.score(scoreInput({ output: 'no date' }))).toEqual({
      score: 0,
      reason: 'does not match /\\d{4}-\\d{2}-\\d{2}/',
    });
  });

  it('scores alike every time with a global expression (no lastIndex carried between outputs)', () => {
    const scorer = regex(/ok/g);
    const input = scoreInput({ output: 'ok' });
    expect([scorer.score(input), scorer.score(input)]).toEqual([
      { score: 1, reason: 'matches /ok/: "ok"' },
      { score: 1, reason: 'matches /ok/: "ok"' },
    ]);
  });

  it('refuses a bad pattern when built (invalid_option), not when scoring', () => {
    expect(() => regex('(unclosed')).toThrow(
      expect.objectContaining({
        code: 'invalid_option',
        message: expect.stringMatching(
          /^regex: option "pattern" "\(unclosed" is not a valid regular expression/,
        ),
      }),
    );
    expect(() => regex(42 as never)).toThrow(/option "pattern" must be a RegExp/);
  });
});

describe('matchesSchema', () => {
  const person = z.object({ name: z.string(), age: z.number().int(), tags: z.array(z.string()) });

  it('scores 1 for an output the schema accepts, a value or JSON text', async () => {
    const scorer = matchesSchema(person);
    const value = { name: 'Ada', age: 36, tags: ['math'] };
    expect(await scorer.score(scoreInput({ output: value }))).toEqual({
      score: 1,
      reason: 'matches the schema',
    });
    expect(await scorer.score(scoreInput({ output: JSON.stringify(value) }))).toMatchObject({ score: 1 });
  });

  it("scores 0 with zod's issues as the reason, path: message", async () => {
    const score = await matchesSchema(person).score(
      scoreInput({ output: { name: 'Ada', age: 'old', tags: ['a', 2] } }),
    );
    expect(score).toEqual({
      score: 0,
      reason:
        'age: Invalid input: expected number, received string; tags.1: Invalid input: expected string, received number',
    });
    expect(await matchesSchema(z.number()).score(scoreInput({ output: { a: 1 } }))).toMatchObject({
      reason: '(root): Invalid input: expected number, received object',
    });
  });

  it('scores text that is not JSON 0 with its reason, unless the schema takes the text itself', async () => {
    expect(await matchesSchema(person).score(scoreInput({ output: 'Ada, 36' }))).toEqual({
      score: 0,
      reason: 'the output is not JSON: "Ada, 36"',
    });
    expect(await matchesSchema(z.string().min(3)).score(scoreInput({ output: 'Ada, 36' }))).toMatchObject({
      score: 1,
    });
  });

  it('turns a schema that throws into a scorer_failed score, and refuses what is not a zod schema', async () => {
    const throwing = z.unknown().refine(() => {
      throw new Error('refinement broke');
    });
    expect(await matchesSchema(throwing).score(scoreInput({ output: { a: 1 } }))).toEqual({
      score: 0,
      error: { code: 'scorer_failed', message: 'Scorer "matchesSchema": refinement broke (scorer_failed)' },
    });
    expect(() => matchesSchema({ parse: () => 1 } as never)).toThrow(/option "schema" must be a zod schema/);
  });
});
