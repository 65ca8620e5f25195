import { randomUUID } from 'node:crypto';
import { RunAbortedError } from '../errors.js';
import { MemoryStore } from '../stores/memory.js';
import type { Store } from '../stores/store.js';
import { coverageOf } from './coverage.js';
import { loadDataset } from './dataset.js';
import { EvalSpend } from './eval-budget.js';
import { type CheckedEvaluateOptions, checkEvaluateOptions } from './evaluate-options.js';
import { saveEvalReport } from './report-store.js';
import { type EvalJob, runJob } from './run-job.js';
import { summarize } from './summary.js';
import type { EvalCaseResult, EvalReport, EvaluateOptions } from './types.js';

/**
 * Runs every case of `dataset` through `target` (`iterations` times each: case 0's iterations, then
 * case 1's…; at most `concurrency` at once), scores each run with `scorers`, and returns the report:
 * per run its inputs, output, scores, usage, cost, time and path, in that order whatever order they
 * finished in (`onCase` hears of each as it finishes); a summary; and the coverage of the target's paths.
 *
 * Runs are ordinary runs, kept in `store` — else the target's own store, else a memory store made
 * for the evaluation; in `store` or the target's own, the report is kept too, under its id (the
 * studio's evals page lists it beside the runs). A case whose
 * run is refused before it runs (`missing_input`, `invalid_inputs`) is `status: 'error'`, unscored,
 * and the evaluation goes on; a failed, partial or paused run is scored like any other.
 *
 * `budget` covers the whole evaluation, its runs' and its scorers' model calls together: once it is
 * spent no case starts (each left is `error`, `budget_exceeded`) and a judge's next call is refused.
 * A crew run gets what is left of it (within the crew's own budget) as its own `budget`, so it stops
 * mid-run (`partial`); a flow run is not stopped midway. Runs in flight at once each get what was
 * left when they started, so together they may spend past it.
 *
 * Aborting `signal` aborts the runs in flight and starts no other: `evaluate` rejects with
 * `RunAbortedError` (`aborted`), whose `partial` is the report of the runs that settled (an aborted
 * run among them as `error`, `aborted`). Bad options reject with `invalid_option` and a bad dataset
 * with `invalid_dataset`, before any run.
 *
 * @example
 * const report = await evaluate({ target: crew, dataset: [{ inputs: { topic: 'AI' }, expected: 'AI' }], scorers: [includes('AI')] });
 */
export async function evaluate<S extends object>(options: EvaluateOptions<S>): Promise<EvalReport> {
  const checked = checkEvaluateOptions(options as unknown as EvaluateOptions);
  const cases = await loadDataset(checked.dataset);
  const target = checked.target.kind === 'crew' ? checked.target.crew : checked.target.flow;
  const kept: Store | undefined = checked.store ?? target.store;
  const store: Store = kept ?? new MemoryStore();
  const id = checked.id ?? randomUUID();
  const startedAt = new Date().toISOString();
  const jobs = cases.flatMap((evalCase, index) =>
    Array.from({ length: checked.iterations }, (_, i) => ({ evalCase, index, iteration: i + 1 })),
  );
  const controller = new AbortController();
  const stop = () => controller.abort(checked.signal?.reason);
  if (checked.signal?.aborted === true) stop();
  checked.signal?.addEventListener('abort', stop, { once: true });
  let results: EvalCaseResult[];
  try {
    results = await runJobs(jobs, checked, {
      store,
      signal: controller.signal,
      spend: new EvalSpend(checked.budget),
    });
  } finally {
    checked.signal?.removeEventListener('abort', stop);
  }
  const report: EvalReport = {
    format: 1,
    id,
    target: { kind: checked.target.kind, name: target.name },
    startedAt,
    iterations: checked.iterations,
    scorers: checked.scorers.map((s) => ({ name: s.name, level: s.level ?? 'run' })),
    cases: results,
    summary: summarize(cases.length, results, checked.scorers),
    coverage: coverageOf(
      target,
      results.map((r) => r.path),
    ),
  };
  if (controller.signal.aborted)
    throw new RunAbortedError(`evaluation ${id}`, controller.signal.reason, report);
  if (kept !== undefined) await saveEvalReport(kept, report);
  return report;
}

/**
 * Runs the jobs, at most `concurrency` at once, each started in order once a place is free, none once
 * the signal aborted; resolves with the results of those that ran, in job order. A throw of `onCase`
 * starts no other job and rejects once those in flight settled.
 */
async function runJobs(
  jobs: readonly EvalJob[],
  options: CheckedEvaluateOptions,
  context: Parameters<typeof runJob>[2],
): Promise<EvalCaseResult[]> {
  const results: (EvalCaseResult | undefined)[] = new Array(jobs.length);
  let next = 0;
  let thrown: { error: unknown } | undefined;
  const worker = async (): Promise<void> => {
    while (next < jobs.length && !context.signal.aborted && thrown === undefined) {
      const at = next;
      next += 1;
      const result = await runJob(jobs[at] as EvalJob, options, context);
      results[at] = result;
      try {
        options.onCase?.(result);
      } catch (error) {
        thrown ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(options.concurrency, jobs.length) }, worker));
  if (thrown !== undefined) throw thrown.error;
  return results.filter((r): r is EvalCaseResult => r !== undefined);
}
