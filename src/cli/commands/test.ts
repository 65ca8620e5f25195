import { UnknownCommandTargetError } from '../../errors.js';
import { crewaiTable } from '../../evals/crewai-table.js';
import { evaluate } from '../../evals/evaluate.js';
import { crewaiTestScorer } from '../../evals/scorers.js';
import type { EvalReport } from '../../evals/types.js';
import { readInputs } from '../inputs.js';
import { loadTarget } from '../load-target.js';
import type { CliIo } from '../output.js';
import { openStore } from '../store-option.js';
import { caseLine, DEFAULT_JUDGE, judgeModel, wholeNumber } from './eval-options.js';

const WHERE = 'statecrew test';

/** Options of `statecrew test`. */
export interface TestCommandOptions {
  export?: string | undefined;
  crew?: string | undefined;
  /** How many times the crew runs (`-n`, `--n-iterations`). */
  nIterations?: string | undefined;
  /** CrewAI's spelling, `--n_iterations`. */
  n_iterations?: string | undefined;
  judge?: string | undefined;
  /** CrewAI's `-m/--model`: the judge. */
  model?: string | undefined;
  input: string[];
  inputs?: string | undefined;
  store?: string | undefined;
  json?: boolean | undefined;
}

/**
 * `statecrew test <crew>`: CrewAI's `crewai test`. Runs the crew `-n` times (default 3) with the
 * inputs, one run after another, a judge (`--judge`, default `openai/gpt-4o-mini`) scoring each task
 * from 1 to 10 (`crewaiTestScorer`), and prints CrewAI's table of the scores (`--json`: the report),
 * each run told on stderr as it ends. Exit code 1 when a run failed (said on stderr), else 0.
 */
export async function testCommand(file: string, options: TestCommandOptions, io: CliIo): Promise<number> {
  const target = await loadTarget(file, options.export, options.crew);
  if (target.kind !== 'crew') {
    throw new UnknownCommandTargetError(
      file,
      `is flow "${target.name}": statecrew test runs a crew (score a flow with statecrew eval)`,
    );
  }
  const inputs = readInputs(options.input, options.inputs);
  const iterations = wholeNumber(WHERE, '--n-iterations', options.nIterations ?? options.n_iterations ?? '3');
  const judge = judgeModel(WHERE, options.judge ?? options.model ?? DEFAULT_JUDGE);
  const store = options.store === undefined ? undefined : await openStore(options.store);
  try {
    const report = await evaluate({
      target: target.crew,
      dataset: [{ inputs }],
      scorers: [crewaiTestScorer({ model: judge })],
      iterations,
      concurrency: 1,
      ...(store === undefined ? {} : { store }),
      onCase: (result) => io.stderr.write(caseLine(WHERE, result)),
    });
    io.stdout.write(
      options.json === true
        ? `${JSON.stringify(report, null, 2)}\n`
        : crewaiTable(report, undefined, target.crew),
    );
    return failedRuns(report, io);
  } finally {
    await store?.close();
  }
}

/** Says on stderr which runs failed, and gives the exit code: 1 when one did, else 0. */
function failedRuns(report: EvalReport, io: CliIo): number {
  const failed = report.cases.filter((c) => ['failed', 'partial', 'error'].includes(c.status));
  for (const run of failed) {
    const why = run.error === undefined ? '' : `: ${run.error.message}`;
    io.stderr.write(`${WHERE}: run ${run.iteration} of ${report.iterations} ${run.status}${why}\n`);
  }
  return failed.length === 0 ? 0 : 1;
}
