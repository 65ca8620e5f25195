import type { Store } from '../../stores/store.js';
import type { Target } from '../load-target.js';
import { type CliIo, crewJson, crewText } from '../output.js';
import { storeFromOption } from '../store-option.js';
import { flowJson, flowText } from './flow-output.js';
import { goOnInterruptibly, storedTarget } from './stored-target.js';

/** Options of `statecrew resume`. */
export interface ResumeCommandOptions {
  route?: string | undefined;
  feedback?: string | undefined;
  step?: string | undefined;
  file?: string | undefined;
  export?: string | undefined;
  store?: string | undefined;
  json?: boolean | undefined;
}

/**
 * `statecrew resume <id>`: goes on with a stored run — a paused flow with the human's `--route` (and
 * `--feedback`), an aborted, crashed or failed run where it stopped. The definition is loaded from
 * where the CLI noted it when the run started, or from `--file`. Ctrl-C (SIGINT) or SIGTERM aborts it
 * cleanly, as `statecrew run` does (exit code 130 or 143). Resolves with the exit code.
 */
export async function resumeCommand(id: string, options: ResumeCommandOptions, io: CliIo): Promise<number> {
  const store = await storeFromOption(options.store);
  try {
    const target = await storedTarget(store, id, options, 'statecrew resume');
    return await resumeTarget(target, id, store, options, io);
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
  return goOnInterruptibly(id, options, io, async (signal) => {
    if (target.kind === 'crew') {
      const out = await target.crew.resume(id, { store, signal });
      io.stdout.write(options.json === true ? crewJson(out) : crewText(out));
      return out.status === 'completed' || out.status === 'paused' ? 0 : 1;
    }
    const out = await target.flow.resume(id, answerOf(options), { store, signal });
    io.stdout.write(options.json === true ? flowJson(out) : flowText(out));
    return out.status === 'failed' ? 1 : 0;
  });
}

/** The human's answer the options give, if any. */
function answerOf(options: ResumeCommandOptions) {
  if (options.route === undefined) return undefined;
  return {
    route: options.route,
    ...(options.feedback === undefined ? {} : { feedback: options.feedback }),
    ...(options.step === undefined ? {} : { step: options.step }),
  };
}
