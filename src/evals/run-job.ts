import { InvalidReportError } from '../errors.js';
import type { Usage } from '../types.js';
import { addJudgeUsage, caseUsage } from './case-usage.js';
import { isPlainObject } from './dataset-case.js';
import type { CheckedEvaluateOptions } from './evaluate-options.js';
import { jsonCopy } from './json-copy.js';
import { erroredOutcome, type RunContext, type RunOutcome, runCrewCase, runFlowCase } from './run-case.js';
import { scoreRun } from './score-case.js';
import type { CaseScore, EvalCase, EvalCaseResult, EvalUsage } from './types.js';

/** One run to make: a case of the dataset, at its place, and which iteration. */
export interface EvalJob {
  evalCase: EvalCase;
  index: number;
  iteration: number;
}

/**
 * Runs one job and scores it: a case not started as the evaluation's budget is spent is `error`
 * (`budget_exceeded`); a run that threw before it ran (bad inputs) or was aborted is `error` and not
 * scored; any other run is scored, whatever its status.
 */
export async function runJob(
  job: EvalJob,
  options: CheckedEvaluateOptions,
  context: RunContext,
): Promise<EvalCaseResult> {
  const refusal = context.spend.exceeded();
  if (refusal !== undefined) return caseResult(job, erroredOutcome('', refusal), {}, caseUsage());
  const { target } = options;
  const outcome =
    target.kind === 'crew'
      ? await runCrewCase(target.crew, job.evalCase.inputs, context)
      : await runFlowCase(target.flow, job.evalCase.inputs, context);
  context.spend.add(outcome.usage);
  const usage = caseUsage(outcome.usage);
  const { run } = outcome;
  if (run === undefined) return caseResult(job, outcome, {}, usage);
  const scores = await scoreRun(options.scorers, { ...outcome, run }, job.evalCase, {
    signal: context.signal,
    spend: context.spend,
    onJudge: (spent: Usage) => addJudgeUsage(usage, spent),
  });
  return caseResult(job, outcome, scores, usage);
}

/** The report's entry for one run, every value in it as JSON holds it. */
function caseResult(
  job: EvalJob,
  outcome: RunOutcome,
  scores: Record<string, CaseScore>,
  usage: EvalUsage,
): EvalCaseResult {
  const { evalCase } = job;
  const caseId = evalCase.id ?? String(job.index);
  const output = jsonCopy(outcome.output);
  const inputs = jsonCopy(evalCase.inputs);
  const expected = 'expected' in evalCase ? jsonCopy(evalCase.expected) : undefined;
  const result: EvalCaseResult = {
    caseId,
    index: job.index,
    iteration: job.iteration,
    inputs: inputs.ok && isPlainObject(inputs.value) ? inputs.value : {},
    ...(expected?.ok === true ? { expected: expected.value } : {}),
    runId: outcome.runId,
    status: outcome.status,
    output: output.ok ? output.value : null,
    ...(outcome.error === undefined ? {} : { error: outcome.error }),
    scores,
    usage,
    ...(usage.costUsd === undefined ? {} : { costUsd: usage.costUsd }),
    timeMs: outcome.timeMs,
    path: outcome.path,
  };
  if (!output.ok) {
    const error = new InvalidReportError(
      `case "${caseId}"`,
      `its run's output cannot be kept as JSON: ${output.problem}`,
      'output',
    );
    result.status = 'error';
    result.error = { code: error.code, message: error.message };
  }
  return result;
}
