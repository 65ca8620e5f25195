import { InvalidOptionError } from '../../errors.js';
import type { Store } from '../../stores/store.js';
import type { RunLineage } from '../../types.js';
import { inputValue, readInputs } from '../inputs.js';
import type { Target } from '../load-target.js';
import type { CliIo } from '../output.js';
import { writeSource } from '../run-source.js';
import { storeFromOption } from '../store-option.js';
import { crewJson, crewText } from './crew-output.js';
import { flowJson, flowText } from './flow-output.js';
import { type DefinitionOptions, goOnInterruptibly, storedTarget } from './stored-target.js';

/** Options of `statecrew fork`. */
export interface ForkCommandOptions extends DefinitionOptions {
  /** The checkpoint to fork at: its node id, or its seq (a whole number). */
  at: string;
  /** Flows: a JSON object merged over the checkpoint's state. */
  state?: string | undefined;
  /** Earlier outputs to use instead, `node=text` (repeatable). */
  output: string[];
  /** The fork's inputs, `key=value` (repeatable). */
  input: string[];
  /** The fork's run id. */
  id?: string | undefined;
  json?: boolean | undefined;
}

const WHERE = 'statecrew fork';

/** `--at`: a seq when it is a whole number, else the checkpoint's node id. */
export function atOf(at: string): string | number {
  return /^\d+$/.test(at) ? Number(at) : at;
}

/** `--state`: a JSON object (`invalid_option` naming `--state` else). */
export function stateOf(text: string | undefined): Record<string, unknown> | undefined {
  if (text === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new InvalidOptionError(WHERE, '--state', 'a JSON object', text, {
      message: `${WHERE}: --state is not JSON (${(error as Error).message}): give a JSON object, such as --state '{"amount": 50}'`,
    });
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new InvalidOptionError(WHERE, '--state', 'a JSON object', text);
  }
  return value as Record<string, unknown>;
}

/**
 * `--output node=text` pairs by node id: a crew task's raw text as given; a flow step's output a JSON
 * value when the text is valid JSON (`42`, `{"ok":true}`), else the text.
 */
export function outputsOf(
  pairs: readonly string[],
  kind: Target['kind'],
): Record<string, unknown> | undefined {
  if (pairs.length === 0) return undefined;
  const outputs: Record<string, unknown> = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new InvalidOptionError(WHERE, '--output', 'node=text', pair);
    const text = pair.slice(at + 1);
    outputs[pair.slice(0, at)] = kind === 'crew' ? text : inputValue(text);
  }
  return outputs;
}

/** The line that says where the fork came from, and its id. */
const lineageLine = (id: string, from: RunLineage | undefined, source: string, at: string) =>
  `forked from ${from?.runId ?? source} at ${from?.checkpoint ?? at}: run ${id}\n`;

/**
 * `statecrew fork <id> --at <checkpoint>`: a new run from stored run `id`'s checkpoint (node id or
 * seq) that keeps what came before it (no model call for it) and runs on with a flow's state edited
 * (`--state`), earlier outputs edited (`--output node=text`), new inputs (`--input`), under `--id`
 * when given. The definition is loaded as `statecrew resume` loads it (where the run noted it, or
 * `--file`). Prints where it was forked from, its id and its result as `run` prints one; Ctrl-C and
 * SIGTERM stop it as they stop a resume. Resolves with the exit code.
 */
export async function forkCommand(id: string, options: ForkCommandOptions, io: CliIo): Promise<number> {
  const state = stateOf(options.state);
  const inputs = options.input.length === 0 ? undefined : readInputs(options.input, undefined);
  const store = await storeFromOption(options.store);
  try {
    const target = await storedTarget(store, id, options, WHERE);
    if (target.kind === 'crew' && state !== undefined) {
      throw new InvalidOptionError(WHERE, '--state', 'a flow run', options.state, {
        message: `${WHERE}: --state edits a flow's state, and run ${id} is a run of crew "${target.name}": edit a task's output with --output <node>=<text>`,
      });
    }
    const edits = {
      at: atOf(options.at),
      ...(inputs === undefined ? {} : { inputs }),
      ...(options.id === undefined ? {} : { id: options.id }),
    };
    const outputs = outputsOf(options.output, target.kind);
    return await forkTarget(
      target,
      id,
      store,
      { ...edits, ...(outputs === undefined ? {} : { outputs }) },
      state,
      options,
      io,
    );
  } finally {
    await store.close();
  }
}

/** What a fork is asked for, whatever the kind of run. */
interface ForkEdits {
  at: string | number;
  outputs?: Record<string, unknown>;
  inputs?: Record<string, unknown>;
  id?: string;
}

/** Forks run `source` of the loaded `target` with `edits`, notes where the fork's definition is, prints it. */
async function forkTarget(
  target: Target,
  source: string,
  store: Store,
  edits: ForkEdits,
  state: Record<string, unknown> | undefined,
  options: ForkCommandOptions,
  io: CliIo,
): Promise<number> {
  let forkId = edits.id ?? source;
  let noted: Promise<void> = Promise.resolve();
  const onRun = (run: { id: string }) => {
    forkId = run.id;
    noted = writeSource(store, run.id, { kind: target.kind, name: target.name, ...target.source });
  };
  const again = options.store === undefined ? [] : ['--store', options.store];
  return goOnInterruptibly(
    () => forkId,
    options,
    io,
    async (signal) => {
      if (target.kind === 'crew') {
        const out = await target.crew.fork(source, { ...edits, store, signal, onRun });
        await noted;
        const line = lineageLine(out.metadata.executionId, out.metadata.forkedFrom, source, options.at);
        io.stdout.write(options.json === true ? crewJson(out) : line + crewText(out, again));
        return out.status === 'completed' || out.status === 'paused' ? 0 : 1;
      }
      const out = await target.flow.fork(source, {
        ...edits,
        ...(state === undefined ? {} : { state }),
        store,
        signal,
        onRun,
      });
      await noted;
      const line = lineageLine(out.id, out.forkedFrom, source, options.at);
      io.stdout.write(options.json === true ? flowJson(out) : line + flowText(out, again));
      return out.status === 'failed' ? 1 : 0;
    },
    WHERE,
  );
}
