import type { EvalReport, EvaluateOptions } from './types.js';

/**
 * Runs every case of `dataset` through `target` (`iterations` times each, at most `concurrency` at
 * once), scores each run with `scorers`, and returns the report: per case its inputs, output, scores,
 * usage, cost, time and path; a summary; and the coverage of the target's paths.
 *
 * @example
 * const report = await evaluate({ target: crew, dataset: [{ inputs: { topic: 'AI' }, expected: 'AI' }], scorers: [includes('AI')] });
 */
export async function evaluate(options: EvaluateOptions): Promise<EvalReport> {
  throw new Error(`evaluate is not built yet (${String(options.iterations)})`);
}
