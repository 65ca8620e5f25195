import { isStatecrewError, RunNotFoundError, UnknownCommandTargetError } from '../../errors.js';
import type { Store } from '../../stores/store.js';
import { abortedReport, suspendedReport, watchInterrupts } from '../interrupt.js';
import { loadTarget, type Target } from '../load-target.js';
import type { CliIo } from '../output.js';
import { readSource, runExists } from '../run-source.js';
import { shutdownGraceOf } from './durations.js';

/** Where a stored run's definition is, when the run's own note is not used: `--file` and `--export`. */
export interface DefinitionOptions {
  file?: string | undefined;
  export?: string | undefined;
  /** Which crew of a YAML folder whose `crew.ts` exports several (`--crew`); else the one the run noted. */
  crew?: string | undefined;
  store?: string | undefined;
  /** On SIGTERM, how long the steps in flight get to commit before the run is suspended (`--shutdown-grace-ms`). */
  shutdownGraceMs?: string | undefined;
}

/**
 * The definition of stored run `id`, for `command` (`statecrew resume`, `statecrew signal`): loaded
 * from where the CLI noted it when the run started, or from `--file`. `run_not_found` when the store
 * holds no such run; `unknown_command_target` when it holds one `statecrew run` did not start.
 */
export async function storedTarget(
  store: Store,
  id: string,
  options: DefinitionOptions,
  command: string,
): Promise<Target> {
  const source = options.file === undefined ? await readSource(store, id) : undefined;
  const file = options.file ?? source?.file;
  if (file === undefined) {
    if (!(await runExists(store, id))) throw new RunNotFoundError(command, id);
    throw new UnknownCommandTargetError(
      id,
      'was not started by statecrew run: name its definition with --file',
    );
  }
  return loadTarget(file, options.export ?? source?.export, options.crew ?? source?.crew);
}

/** The options a later `statecrew resume` of the same run needs again: where the run and its definition are. */
export function resumeArgs(options: DefinitionOptions): string[] {
  return [
    ...(options.file === undefined ? [] : ['--file', options.file]),
    ...(options.export === undefined ? [] : ['--export', options.export]),
    ...(options.crew === undefined ? [] : ['--crew', options.crew]),
    ...(options.store === undefined ? [] : ['--store', options.store]),
  ];
}

/**
 * Goes on with stored run `id` through `goOn`, which is handed the signal Ctrl-C (SIGINT) aborts and
 * SIGTERM stops gracefully (`--shutdown-grace-ms`): an aborted or suspended run is reported with how
 * to resume it, and ends with 130 or 143. `id` may be a function of the run's id once known (a fork's
 * new run). Resolves with the exit code.
 */
export async function goOnInterruptibly(
  runId: string | (() => string),
  options: DefinitionOptions,
  io: CliIo,
  goOn: (signal: AbortSignal) => Promise<number>,
  command = 'statecrew resume',
): Promise<number> {
  const idOf = () => (typeof runId === 'string' ? runId : runId());
  const graceMs = shutdownGraceOf(command, options.shutdownGraceMs);
  const interrupts = watchInterrupts(process, undefined, graceMs);
  const { signal } = interrupts;
  try {
    return await goOn(signal);
  } catch (error) {
    if (isStatecrewError(error, 'suspended') && signal.aborted) {
      io.stderr.write(suspendedReport(idOf(), error, resumeArgs(options)));
      return interrupts.exitCode();
    }
    if (!isStatecrewError(error, 'aborted') || !signal.aborted) throw error;
    io.stderr.write(abortedReport(idOf(), error, resumeArgs(options)));
    return interrupts.exitCode();
  } finally {
    interrupts.dispose();
  }
}
