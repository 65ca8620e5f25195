import { InvalidOptionError, RunAbortedError } from '../../errors.js';
import { parseOptions } from '../../options/parse.js';
import type { CrewOutput } from '../../types.js';
import type { CrewRun } from './run-options.js';
import { type KickoffForEachOptions, kickoffForEachOptionsSchema, type RunOptions } from './run-options.js';

/** What running many inputs needs of a crew. */
export interface ManyRunsCrew {
  readonly name: string;
  run(options: RunOptions): CrewRun;
}

/**
 * Runs `crew` once for each entry of `inputsList`, at most `concurrency` at once, and resolves with
 * each run's settled result in input order: `fulfilled` with its output, or `rejected` with its error
 * (a failed run never stops the others). Bad arguments reject the whole call with `invalid_option`
 * before any run starts.
 */
export async function kickoffForEach(
  crew: ManyRunsCrew,
  inputsList: readonly Record<string, unknown>[],
  options: KickoffForEachOptions,
): Promise<PromiseSettledResult<CrewOutput>[]> {
  const where = `Crew "${crew.name}" kickoffForEach`;
  const { concurrency, onRun, ...runOptions } = parseOptions(kickoffForEachOptionsSchema, where, options);
  checkInputsList(where, inputsList);
  const results: PromiseSettledResult<CrewOutput>[] = new Array(inputsList.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < inputsList.length) {
      const index = next;
      next += 1;
      results[index] = await settle(crew, where, index, { ...runOptions, inputs: inputsList[index] }, onRun);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, inputsList.length) }, worker));
  return results;
}

/** One run of the list, settled: an abort before it started rejects it without starting it. */
async function settle(
  crew: ManyRunsCrew,
  where: string,
  index: number,
  options: RunOptions,
  onRun: KickoffForEachOptions['onRun'],
): Promise<PromiseSettledResult<CrewOutput>> {
  const { signal } = options;
  if (signal?.aborted === true) {
    return {
      status: 'rejected',
      reason: new RunAbortedError(`${where} #${index}`, signal.reason, undefined),
    };
  }
  try {
    const run = crew.run(options);
    onRun?.(run, index);
    return { status: 'fulfilled', value: await run.result };
  } catch (reason) {
    return { status: 'rejected', reason };
  }
}

/** Refuses a list that is not an array of plain objects (`invalid_option`, naming the entry). */
function checkInputsList(where: string, inputsList: unknown): void {
  if (!Array.isArray(inputsList)) {
    throw new InvalidOptionError(where, 'inputsList', 'an array of input objects', inputsList);
  }
  inputsList.forEach((entry: unknown, index) => {
    const proto: unknown =
      typeof entry === 'object' && entry !== null ? Object.getPrototypeOf(entry) : undefined;
    if (Array.isArray(entry) || (proto !== Object.prototype && proto !== null)) {
      throw new InvalidOptionError(where, `inputsList[${index}]`, 'a plain object of inputs', entry);
    }
  });
}
