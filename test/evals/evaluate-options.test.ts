import { describe, expect, it } from 'vitest';
import { type EvaluateOptions, evaluate, InvalidOptionError } from '../../src/index.js';
import { researchCrew } from './eval-fixtures.js';

const dataset = [{ inputs: { topic: 'AI' } }];

async function refusedWith(options: Partial<EvaluateOptions> & Record<string, unknown>): Promise<string> {
  const error: unknown = await evaluate({
    target: researchCrew(),
    dataset,
    scorers: { any: () => 1 },
    ...options,
  } as EvaluateOptions).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(InvalidOptionError);
  return (error as InvalidOptionError).message;
}

describe('evaluate: options', () => {
  it('refuses a target that is neither a crew nor a flow', async () => {
    expect(await refusedWith({ target: { name: 'x' } as never })).toContain(
      'option "target" must be a Crew or a Flow',
    );
  });

  it('refuses iterations and concurrency that are not positive integers', async () => {
    expect(await refusedWith({ iterations: 0 })).toContain('option "iterations" must be an integer ≥ 1');
    expect(await refusedWith({ concurrency: 1.5 })).toContain('option "concurrency" must be an integer ≥ 1');
  });

  it('refuses no scorer, a scorer of the wrong shape, and two scorers of one name', async () => {
    expect(await refusedWith({ scorers: [] })).toContain(
      'option "scorers" must be a non-empty list or record',
    );
    expect(await refusedWith({ scorers: [{ name: 'x' } as never] })).toContain('scorers[0]');
    expect(
      await refusedWith({
        scorers: [
          { name: 'same', score: () => ({ score: 1 }) },
          { name: 'same', score: () => ({ score: 0 }) },
        ],
      }),
    ).toContain('two scorers are named "same"');
  });

  it('refuses an unknown option and a bad budget, naming them', async () => {
    expect(await refusedWith({ iteration: 2 })).toContain('did you mean "iterations"');
    expect(await refusedWith({ budget: { maxTokens: -1 } })).toContain('budget.maxTokens');
  });

  it('names list scorers by their name, a function by its own name, else by its place', async () => {
    function short({ text }: { text: string }) {
      return text.length < 100;
    }
    const report = await evaluate({
      target: researchCrew(),
      dataset,
      scorers: [{ name: 'own', score: () => ({ score: 1 }) }, short, () => 1],
    });
    expect(report.scorers.map((s) => s.name)).toEqual(['own', 'short', 'scorer3']);
    expect(Object.keys(report.cases[0]?.scores ?? {})).toEqual(['own', 'short', 'scorer3']);
  });

  it('names a record’s scorer object by its key, keeping its level', async () => {
    const report = await evaluate({
      target: researchCrew(),
      dataset,
      scorers: { perTask: { name: 'other', level: 'node', score: () => ({ score: 1 }) } },
    });
    expect(report.scorers).toEqual([{ name: 'perTask', level: 'node' }]);
    expect(Object.keys(report.cases[0]?.scores.perTask?.nodes ?? {})).toEqual(['research', 'write']);
  });

  it('refuses a bad dataset with invalid_dataset before any run', async () => {
    const llm = researchCrew();
    await expect(
      evaluate({ target: llm, dataset: [{ inputs: 3 } as never], scorers: [() => 1] }),
    ).rejects.toMatchObject({
      code: 'invalid_dataset',
    });
  });
});
