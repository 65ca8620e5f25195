import { RunNotFoundError, UnknownCommandTargetError } from '../../errors.js';
import { loadTarget } from '../load-target.js';
import { type CliIo, crewJson, crewText } from '../output.js';
import { readSource, runExists } from '../run-source.js';
import { storeFromOption } from '../store-option.js';
import { flowJson, flowText } from './flow-output.js';

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
 * where the CLI noted it when the run started, or from `--file`. Resolves with the exit code.
 */
export async function resumeCommand(id: string, options: ResumeCommandOptions, io: CliIo): Promise<number> {
  const store = await storeFromOption(options.store);
  try {
    const source = options.file === undefined ? await readSource(store, id) : undefined;
    const file = options.file ?? source?.file;
    if (file === undefined) {
      if (!(await runExists(store, id))) throw new RunNotFoundError('statecrew resume', id);
      throw new UnknownCommandTargetError(
        id,
        'was not started by statecrew run: name its definition with --file',
      );
    }
    const target = await loadTarget(file, options.export ?? source?.export);
    if (target.kind === 'crew') {
      const out = await target.crew.resume(id, { store });
      io.stdout.write(options.json === true ? crewJson(out) : crewText(out));
      return out.status === 'completed' ? 0 : 1;
    }
    const answer =
      options.route === undefined
        ? undefined
        : {
            route: options.route,
            ...(options.feedback === undefined ? {} : { feedback: options.feedback }),
            ...(options.step === undefined ? {} : { step: options.step }),
          };
    const out = await target.flow.resume(id, answer, { store });
    io.stdout.write(options.json === true ? flowJson(out) : flowText(out));
    return out.status === 'failed' ? 1 : 0;
  } finally {
    await store.close();
  }
}
