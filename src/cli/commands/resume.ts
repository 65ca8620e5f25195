import { InvalidOptionError, isStatecrewError } from '../../errors.js';
import { ExecutionDocument } from '../../runtime/crew/execution-document.js';
import { loadSnapshot } from '../../runtime/flow/flow-store.js';
import type { Store } from '../../stores/store.js';
import { type AnswerOptions, crewAnswerCommands, crewAnswersOf, pendingOf } from '../answers.js';
import type { Target } from '../load-target.js';
import type { CliIo } from '../output.js';
import { storeFromOption } from '../store-option.js';
import { crewJson, crewText } from './crew-output.js';
import { flowJson, flowText, resumeHint } from './flow-output.js';
import { goOnInterruptibly, resumeArgs, storedTarget } from './stored-target.js';

/** Options of `statecrew resume`. */
export interface ResumeCommandOptions extends AnswerOptions {
  file?: string | undefined;
  export?: string | undefined;
  /** Which crew of a YAML folder whose `crew.ts` exports several (`--crew`); else the one the run noted. */
  crew?: string | undefined;
  store?: string | undefined;
  json?: boolean | undefined;
  shutdownGraceMs?: string | undefined;
}

/**
 * `statecrew resume <id>`: goes on with a stored run — a paused flow with the human's `--route` (and
 * `--feedback`), a paused crew (or a flow step's crew) with `--approve <callId>`, `--deny <callId>`
 * and `--review <nodeId> approve` (a denial's or a sent-back review's `--feedback`), an aborted,
 * crashed or failed run where it stopped. A paused run resumed without the answer it needs prints the
 * exact commands that answer it (`answer_required`, exit 1). The definition is loaded from where the
 * CLI noted it when the run started, or from `--file`. Ctrl-C (SIGINT) or SIGTERM aborts it cleanly,
 * as `statecrew run` does (exit code 130 or 143). Resolves with the exit code.
 */
export async function resumeCommand(id: string, options: ResumeCommandOptions, io: CliIo): Promise<number> {
  const store = await storeFromOption(options.store);
  try {
    const target = await storedTarget(store, id, options, 'statecrew resume');
    try {
      return await resumeTarget(target, id, store, options, io);
    } catch (error) {
      const line = wrongAnswerLine(error, id);
      if (line === undefined) throw error;
      io.stderr.write(`${line}\n${(await answerCommands(store, id, resumeArgs(options))).join('\n')}\n`);
      return 1;
    }
  } finally {
    await store.close();
  }
}

/** Resumes run `id` of the loaded `target`, aborting it cleanly on SIGINT or SIGTERM. */
function resumeTarget(
  target: Target,
  id: string,
  store: Store,
  options: ResumeCommandOptions,
  io: CliIo,
): Promise<number> {
  const answers = crewAnswersOf(options);
  const again = resumeArgs(options);
  if (target.kind === 'crew' && options.route !== undefined) {
    throw new InvalidOptionError('statecrew resume', '--route', 'a flow run', options.route, {
      message: `statecrew resume: --route answers a flow's human step, and run ${id} is a run of crew "${target.name}": answer it with --approve, --deny or --review`,
    });
  }
  if (answers !== undefined && options.route !== undefined) {
    throw new InvalidOptionError(
      'statecrew resume',
      '--route',
      'no --approve, --deny or --review',
      options.route,
      {
        message:
          'statecrew resume: give either --route (a human step) or --approve, --deny and --review (a crew), not both',
      },
    );
  }
  return goOnInterruptibly(id, options, io, async (signal) => {
    if (target.kind === 'crew') {
      const out = await target.crew.resume(id, { store, signal, ...answers });
      io.stdout.write(options.json === true ? crewJson(out) : crewText(out, again));
      return out.status === 'completed' || out.status === 'paused' ? 0 : 1;
    }
    const answer = answers === undefined ? routeOf(options) : { ...answers, step: options.step };
    const out = await target.flow.resume(id, answer, { store, signal });
    io.stdout.write(options.json === true ? flowJson(out) : flowText(out, again));
    return out.status === 'failed' ? 1 : 0;
  });
}

/** The human's answer to a flow's human step the options give, if any. */
function routeOf(options: ResumeCommandOptions) {
  if (options.route === undefined) return undefined;
  return {
    route: options.route,
    ...(options.feedback === undefined ? {} : { feedback: options.feedback }),
    ...(options.step === undefined ? {} : { step: options.step }),
  };
}

/** The flags an answer naming what does not wait came from, by the option the runtime names. */
const ANSWER_FLAGS: Readonly<Record<string, string>> = {
  approvals: '--approve or --deny',
  reviews: '--review',
};

/**
 * The error line of a resume whose answer does not fit what the paused run waits for, in the
 * command's terms: none given (`answer_required`), or a call or node that does not wait, named by
 * its flag (`invalid_option`); undefined for any other error.
 */
function wrongAnswerLine(error: unknown, id: string): string | undefined {
  if (isStatecrewError(error, 'answer_required')) {
    const waits =
      /^.* waits for (?:"[^"]*"(?:, )?)+/.exec(error.message)?.[0] ?? `run ${id} waits for an answer`;
    return `statecrew: ${waits}: answer it with one of these (answer_required)`;
  }
  const flag = isStatecrewError(error, 'invalid_option')
    ? ANSWER_FLAGS[String(error.details.option)]
    : undefined;
  const named = / names (".*)\s*\(invalid_option\)$/.exec(isStatecrewError(error) ? error.message : '')?.[1];
  if (flag === undefined || named === undefined) return undefined;
  return `statecrew: run ${id}: ${flag} names ${named.trimEnd()}; answer it with one of these (invalid_option)`;
}

/** What paused run `id` waits for, and the exact commands that answer it. */
async function answerCommands(store: Store, id: string, again: readonly string[]): Promise<string[]> {
  const doc = await ExecutionDocument.fromStore(store, id);
  if (doc !== undefined) return crewAnswerCommands(id, pendingOf(doc), again);
  return resumeHint(id, (await loadSnapshot(store, id))?.pending ?? [], again);
}
