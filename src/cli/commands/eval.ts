import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { compareEvals } from '../../evals/compare.js';
import { evaluate } from '../../evals/evaluate.js';
import { readEvalReportFile } from '../../evals/report-check.js';
import { formatComparison, formatReport } from '../../evals/report-text.js';
import type { EvalComparison, EvalReport } from '../../evals/types.js';
import { loadTarget } from '../load-target.js';
import type { CliIo } from '../output.js';
import { openStore } from '../store-option.js';
import { caseLine, judgeModel, numberWithin, wholeNumber } from './eval-options.js';
import { scorersOf } from './eval-scorers.js';
import { verdictOf } from './eval-verdict.js';

const WHERE = 'statecrew eval';

/** Options of `statecrew eval`. */
export interface EvalCommandOptions {
  export?: string | undefined;
  crew?: string | undefined;
  dataset: string;
  /** Iterations of each case (`-n`, `--iterations`). */
  iterations?: string | undefined;
  concurrency?: string | undefined;
  judge?: string | undefined;
  baseline?: string | undefined;
  tolerance?: string | undefined;
  failUnder?: string | undefined;
  out?: string | undefined;
  store?: string | undefined;
  json?: boolean | undefined;
}

/**
 * `statecrew eval <file> --dataset <cases>`: runs every case through the crew or flow, scores the
 * runs with the module's `scorers` (and `--judge`'s), prints the report (its coverage included) and,
 * with `--baseline`, how it moved against it; writes the report as JSON (`--out`, default
 * `.statecrew/evals/<report id>.json`). Exit code 1 when a scorer's mean is under `--fail-under`, or
 * fell against the baseline by more than `--tolerance`, or a case regressed (each said on stderr);
 * a baseline that is not a report fails at once with `invalid_report`.
 */
export async function evalCommand(file: string, options: EvalCommandOptions, io: CliIo): Promise<number> {
  const target = await loadTarget(file, options.export, options.crew);
  const judge = options.judge === undefined ? undefined : judgeModel(WHERE, options.judge);
  const scorers = scorersOf(target, judge, file);
  const baseline = options.baseline === undefined ? undefined : await readEvalReportFile(options.baseline);
  const iterations = wholeNumber(WHERE, '--iterations', options.iterations ?? '1');
  const concurrency = wholeNumber(WHERE, '--concurrency', options.concurrency ?? '4');
  const tolerance = numberWithin(WHERE, '--tolerance', options.tolerance ?? '0', 0, 1);
  const failUnder =
    options.failUnder === undefined
      ? undefined
      : numberWithin(WHERE, '--fail-under', options.failUnder, 0, 1);
  const store = options.store === undefined ? undefined : await openStore(options.store);
  let report: EvalReport;
  try {
    report = await evaluate({
      target: target.kind === 'crew' ? target.crew : target.flow,
      dataset: options.dataset,
      scorers,
      iterations,
      concurrency,
      ...(store === undefined ? {} : { store }),
      onCase: (result) => io.stderr.write(caseLine(WHERE, result)),
    });
  } finally {
    await store?.close();
  }
  const comparison = baseline === undefined ? undefined : compareEvals(baseline, report, { tolerance });
  printReport(report, comparison, options.json === true, io);
  const written = writeReport(report, options.out);
  (options.json === true ? io.stderr : io.stdout).write(`Report written to ${written}\n`);
  const reasons = verdictOf(report, comparison, { failUnder, tolerance });
  for (const reason of reasons) io.stderr.write(`${WHERE}: ${reason}\n`);
  return reasons.length === 0 ? 0 : 1;
}

/** The report on stdout: as text (with the comparison), or as JSON. */
function printReport(
  report: EvalReport,
  comparison: EvalComparison | undefined,
  json: boolean,
  io: CliIo,
): void {
  if (json) {
    io.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    return;
  }
  io.stdout.write(ending(formatReport(report)));
  if (comparison !== undefined) io.stdout.write(`\n${ending(formatComparison(comparison))}`);
}

const ending = (text: string) => (text.endsWith('\n') ? text : `${text}\n`);

/** Writes the report as JSON to `out`, else `.statecrew/evals/<id>.json`; the path written, as given or relative. */
function writeReport(report: EvalReport, out: string | undefined): string {
  const path = out ?? join('.statecrew', 'evals', `${report.id}.json`);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(report, null, 2)}\n`);
  return out ?? relative(process.cwd(), path);
}
