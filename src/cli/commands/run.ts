import { EMPTY, type Observable } from 'rxjs';
import { isStatecrewError, type StatecrewError } from '../../errors.js';
import { SqliteStore } from '../../stores/sqlite.js';
import type { Store } from '../../stores/store.js';
import type { MissingInput, StatecrewEvent } from '../../types.js';
import { missingInputRefusal } from '../cli-words.js';
import { readInputs } from '../inputs.js';
import { abortedReport, suspendedReport, watchInterrupts } from '../interrupt.js';
import { loadTarget, type Target } from '../load-target.js';
import type { CliIo } from '../output.js';
import { liveProgress, type Progress, plainProgress } from '../progress.js';
import { writeSource } from '../run-source.js';
import { openStore } from '../store-option.js';
import { crewJson, crewText } from './crew-output.js';
import { shutdownGraceOf } from './durations.js';
import { flowJson, flowText } from './flow-output.js';

/** Options of `statecrew run`. */
export interface RunCommandOptions {
  export?: string | undefined;
  /** Which crew of a YAML folder whose `crew.ts` exports several (`crews`). */
  crew?: string | undefined;
  input: string[];
  inputs?: string | undefined;
  store?: string | undefined;
  json?: boolean | undefined;
  /** Runs a crew whose inputs leave `{placeholders}` unfilled, with a warning, instead of refusing it. */
  allowMissingInputs?: boolean | undefined;
  shutdownGraceMs?: string | undefined;
  /** The thread to run on (`--thread`): a flow starts from the state its thread's last run left. */
  thread?: string | undefined;
}

/**
 * `statecrew run <file>`: runs the crew or flow, showing its progress (a live list on a terminal,
 * one line per event otherwise), keeps it in a store (the `--store`, else the definition's own, else
 * the default SQLite file) and prints the result. A crew whose inputs leave an `{identifier}`
 * placeholder unfilled is refused (`missing_input`) unless `--allow-missing-inputs`. Ctrl-C (SIGINT)
 * aborts cleanly: the run is kept as aborted, `statecrew resume <id>` goes on with it, exit code 130.
 * SIGTERM stops it gracefully: the nodes in flight get `--shutdown-grace-ms` to commit, none starts
 * after them, and the run is kept `running` with no owner for a runner or `statecrew resume` (exit
 * code 143). Resolves with the exit code.
 */
export async function runCommand(file: string, options: RunCommandOptions, io: CliIo): Promise<number> {
  const target = await loadTarget(file, options.export, options.crew);
  const inputs = readInputs(options.input, options.inputs);
  try {
    return await runTarget(target, inputs, options, io);
  } catch (error) {
    if (!isStatecrewError(error, 'missing_input')) throw error;
    io.stderr.write(missingInputRefusal(target.name, missingOf(error)));
    return 1;
  }
}

/** The placeholders a `missing_input` refusal names. */
const missingOf = (error: StatecrewError<'missing_input'>) =>
  (error.details.missingInputs ?? []) as MissingInput[];

/** Runs the loaded target with `inputs`, showing its progress, and prints its result. */
async function runTarget(
  target: Target,
  inputs: Record<string, unknown>,
  options: RunCommandOptions,
  io: CliIo,
): Promise<number> {
  const opened = options.store === undefined ? undefined : await openStore(options.store);
  const store = opened ?? ownStore(target) ?? new SqliteStore();
  const graceMs = shutdownGraceOf('statecrew run', options.shutdownGraceMs);
  const interrupts = watchInterrupts(process, undefined, graceMs);
  const { signal } = interrupts;
  try {
    const run = startRun(target, { inputs, signal, store }, options);
    const progress = progressFor(target, run.id, options.json === true, io);
    run.events$.subscribe({ next: (event: StatecrewEvent) => progress.event(event), error: () => {} });
    await writeSource(store, run.id, { kind: target.kind, name: target.name, ...target.source });
    try {
      const out = await run.result;
      progress.end();
      if (target.kind === 'crew') {
        const crewOut = out as Awaited<ReturnType<typeof target.crew.kickoff>>;
        io.stdout.write(options.json === true ? crewJson(crewOut) : crewText(crewOut, storeArgs(options)));
        return crewOut.status === 'completed' || crewOut.status === 'paused' ? 0 : 1;
      }
      const flowOut = out as Awaited<ReturnType<typeof target.flow.kickoff>>;
      io.stdout.write(options.json === true ? flowJson(flowOut) : flowText(flowOut, storeArgs(options)));
      return flowOut.status === 'failed' ? 1 : 0;
    } catch (error) {
      const stopped = isStatecrewError(error, 'aborted') || isStatecrewError(error, 'suspended');
      if (!stopped || !signal.aborted) {
        progress.end();
        throw error;
      }
      progress.end(signal.reason instanceof Error ? signal.reason.message : 'aborted');
      const resumeArgs = storeArgs(options);
      io.stderr.write(
        isStatecrewError(error, 'suspended')
          ? suspendedReport(run.id, error, resumeArgs)
          : abortedReport(run.id, error, resumeArgs),
      );
      return interrupts.exitCode();
    }
  } finally {
    interrupts.dispose();
    await opened?.close();
  }
}

/** What `run` starts: its id, its events (the progress) and its end. */
interface Started {
  id: string;
  events$: Observable<StatecrewEvent>;
  result: Promise<unknown>;
}

/**
 * Starts the target's run. A flow on a `--thread` is kicked off (its `run` takes no thread: the
 * thread's last run is read first), under an id chosen here, and shows no progress lines.
 */
function startRun(
  target: Target,
  given: { inputs: Record<string, unknown>; signal: AbortSignal; store: Store },
  options: RunCommandOptions,
): Started {
  const { thread } = options;
  if (target.kind === 'crew') {
    const strictInputs = options.allowMissingInputs !== true;
    return target.crew.run({ ...given, strictInputs, ...(thread === undefined ? {} : { thread }) });
  }
  if (thread === undefined) return target.flow.run(given);
  const id = typeof given.inputs.id === 'string' ? given.inputs.id : globalThis.crypto.randomUUID();
  const result = target.flow.kickoff({ ...given, inputs: { ...given.inputs, id }, thread });
  return { id, events$: EMPTY, result };
}

/** The options a later `statecrew resume` of the run needs again: its `--store`. */
const storeArgs = (options: RunCommandOptions) =>
  options.store === undefined ? [] : ['--store', options.store];

/** The store the definition itself was made with, if any. */
function ownStore(target: Target): Store | undefined {
  return target.kind === 'crew' ? target.crew.store : target.flow.store;
}

/** A live list on a terminal (or with `FORCE_TTY`), else plain lines; to stderr when stdout carries JSON. */
function progressFor(target: Target, id: string, json: boolean, io: CliIo): Progress {
  if (json) return plainProgress(io.stderr, id);
  const forced = io.env.FORCE_TTY;
  const tty = io.stdout.isTTY === true || (forced !== undefined && forced !== '' && forced !== '0');
  if (!tty) return plainProgress(io.stdout, id);
  const nodes =
    target.kind === 'crew'
      ? target.crew.processShape().repeats
        ? []
        : target.crew.tasks.map((task) => target.crew.nodeIdOf(task) ?? '')
      : target.flow.definition.steps.map((step) => step.name);
  return liveProgress(io.stdout, nodes, id);
}
