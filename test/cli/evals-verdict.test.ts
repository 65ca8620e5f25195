import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { judgeModel, numberWithin, wholeNumber } from '../../src/cli/commands/eval-options.js';
import { scorersOf } from '../../src/cli/commands/eval-scorers.js';
import { verdictOf } from '../../src/cli/commands/eval-verdict.js';
import type { Target } from '../../src/cli/load-target.js';
import type { EvalComparison } from '../../src/evals/types.js';
import { Agent, Crew, readEvalReportFile, registerProvider, Task } from '../../src/index.js';
import { createScriptedModel } from '../../src/testing.js';
import { fakeCase, fakeReport } from './evals-report-fake.js';

const report = fakeReport([fakeCase(0, 1, { a: 6 }, 0)], ['a']);
report.summary.scorers = {
  quality: { mean: 0.6, min: 0.6, max: 0.6, count: 1, errors: 0 },
  exact: { mean: 0.9, min: 0.9, max: 0.9, count: 1, errors: 0 },
};

/** A comparison where `quality` moved by `delta` and the cases in `regressed` fell. */
function comparison(delta: number, regressed: EvalComparison['regressed'] = []): EvalComparison {
  return {
    scorers: [{ scorer: 'quality', baseline: 0.6 - delta, candidate: 0.6, delta }],
    regressed,
    improved: [],
    added: [],
    removed: [],
    coverage: { baseline: 1, candidate: 1, delta: 0 },
    timeMs: { baseline: 0, candidate: 0 },
  };
}

describe('statecrew eval: the verdict', () => {
  it('names each scorer whose mean is under --fail-under, and none when all are above', () => {
    expect(verdictOf(report, undefined, { failUnder: 0.8 })).toEqual([
      'scorer "quality" scored 0.6, under --fail-under 0.8',
    ]);
    expect(verdictOf(report, undefined, { failUnder: 0.5 })).toEqual([]);
    expect(verdictOf(report, undefined, {})).toEqual([]);
  });

  it('fails a scorer that fell against the baseline by more than the tolerance, and names regressed cases', () => {
    expect(verdictOf(report, comparison(-0.2), {})).toEqual([
      'scorer "quality" fell from 0.8 to 0.6 against the baseline (-0.2, tolerance 0)',
    ]);
    expect(verdictOf(report, comparison(-0.2), { tolerance: 0.25 })).toEqual([]);
    expect(verdictOf(report, comparison(0.1), {})).toEqual([]);
    const fell = [{ caseId: 'paris', scorer: 'exact', baseline: 1, candidate: 0, delta: -1 }];
    expect(verdictOf(report, comparison(0, fell), {})).toEqual(['case "paris" regressed on "exact": 1 → 0']);
  });
});

describe('statecrew eval: the options', () => {
  it('reads whole numbers and bounded numbers, refusing others with invalid_option', () => {
    expect(wholeNumber('statecrew eval', '--concurrency', '3')).toBe(3);
    expect(() => wholeNumber('statecrew eval', '--concurrency', '0')).toThrow(
      /option "--concurrency" must be a whole number > 0/,
    );
    expect(() => wholeNumber('statecrew test', '--n-iterations', '2.5')).toThrow(
      expect.objectContaining({ code: 'invalid_option' }),
    );
    expect(numberWithin('statecrew eval', '--fail-under', '0.8', 0, 1)).toBe(0.8);
    expect(() => numberWithin('statecrew eval', '--fail-under', '80', 0, 1)).toThrow(
      /must be a number from 0 to 1, got "80"/,
    );
  });

  it('builds the judge from a provider string as an llm: is read, refusing one that names no model or an unregistered provider', () => {
    registerProvider('evalsjudge', () => createScriptedModel(['9']));
    expect(judgeModel('statecrew test', 'evalsjudge/judge-1').id).toBe('evalsjudge:judge-1');
    expect(() => judgeModel('statecrew test', 'not a model')).toThrow(
      /option "--judge" must be a model as a provider string/,
    );
    expect(() => judgeModel('statecrew test', 'nosuchprovider/x')).toThrow(
      expect.objectContaining({ code: 'unknown_provider' }),
    );
  });

  it('refuses a module without scorers and without --judge, naming scorers and --judge', () => {
    const target = crewTarget(undefined);
    expect(() => scorersOf(target, undefined)).toThrow(
      /exports no scorers: export scorers .* or pass --judge <model> \(invalid_option\)/,
    );
    expect(() => scorersOf(crewTarget({ a: 'no scorer' }), undefined)).toThrow(
      /option "scorers" must be a record or a list of scorers/,
    );
  });

  it('takes the exported scorers, a record or a list, and adds the judge to them', () => {
    const exact = () => 1;
    expect(scorersOf(crewTarget({ exact }), undefined)).toEqual({ exact });
    const judge = createScriptedModel(['9']);
    expect(Object.keys(scorersOf(crewTarget({ exact }), judge))).toEqual(['exact', 'quality']);
    const listed = scorersOf(crewTarget([exact]), judge) as readonly unknown[];
    expect(listed).toHaveLength(2);
    expect(listed[0]).toBe(exact);
  });

  it('refuses a baseline that is not JSON, or no file, with invalid_report naming it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'statecrew-evals-'));
    const broken = join(dir, 'report.json');
    writeFileSync(broken, '{ not json');
    await expect(readEvalReportFile(broken)).rejects.toThrow(
      /Evaluation report .*report\.json: is not JSON \(.*\) \(invalid_report\)/,
    );
    await expect(readEvalReportFile(join(dir, 'none.json'))).rejects.toThrow(
      /none\.json: no such file \(invalid_report\)/,
    );
  });
});

/** A crew target whose module exports `scorers` (none when undefined). */
function crewTarget(scorers: unknown): Target {
  const agent = new Agent({ role: 'r', goal: 'g', backstory: 'b', llm: createScriptedModel(['x']) });
  const crew = new Crew({
    name: 'c',
    agents: [agent],
    tasks: [new Task({ description: 'd', expectedOutput: 'e', agent })],
  });
  return {
    kind: 'crew',
    crew,
    name: 'c',
    source: { file: 'crew.ts' },
    exports: scorers === undefined ? {} : { scorers },
  };
}
