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
      if (!isStatecrewError(error, 'answer_required')) throw error;
      io.stderr.write(await answerRequired(store, id, error.message, resumeArgs(options)));
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

/**
 * What `statecrew resume` prints for a paused run resumed without the answer it needs: the error's
 * line, then what waits and the exact commands that answer it.
 */
async function answerRequired(
  store: Store,
  id: string,
  message: string,
  again: readonly string[],
): Promise<string> {
  const doc = await ExecutionDocument.fromStore(store, id);
  const snapshot = doc === undefined ? await loadSnapshot(store, id) : undefined;
  const lines =
    doc !== undefined
      ? crewAnswerCommands(id, pendingOf(doc), again)
      : resumeHint(id, snapshot?.pending ?? [], again);
  const waits = /^.* waits for (?:"[^"]*"(?:, )?)+/.exec(message)?.[0] ?? `run ${id} waits for an answer`;
  return `statecrew: ${waits}: answer it with one of these (answer_required)\n${lines.join('\n')}\n`;
}
