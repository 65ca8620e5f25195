import { InvalidOptionError, UnknownCommandTargetError } from '../../errors.js';
import type { Flow } from '../../runtime/flow/flow.js';
import type { Store } from '../../stores/store.js';
import type { CliIo } from '../output.js';
import { storeFromOption } from '../store-option.js';
import { flowJson, flowText } from './flow-output.js';
import { goOnInterruptibly, storedTarget } from './stored-target.js';

/** Options of `statecrew signal`. */
export interface SignalCommandOptions {
  /** The event's payload, as JSON text. */
  payload?: string | undefined;
  file?: string | undefined;
  export?: string | undefined;
  /** Which crew of a YAML folder whose `crew.ts` exports several (`--crew`); else the one the run noted. */
  crew?: string | undefined;
  store?: string | undefined;
  json?: boolean | undefined;
}

/**
 * `statecrew signal <id> <event>`: sends outside event `event` (with the JSON `--payload`) to a
 * paused flow run: its wait steps for that event complete and the run goes on here, as `statecrew
 * resume` does — the definition loaded from where the CLI noted it when the run started, or from
 * `--file`; Ctrl-C (SIGINT) or SIGTERM aborts it cleanly (exit code 130 or 143). A run that waits for
 * no such event is left as it is (`no_waiter`, exit code 1). Resolves with the exit code.
 */
export async function signalCommand(
  id: string,
  event: string,
  options: SignalCommandOptions,
  io: CliIo,
): Promise<number> {
  const payload = payloadOf(options.payload);
  const store = await storeFromOption(options.store);
  try {
    const target = await storedTarget(store, id, options, 'statecrew signal');
    if (target.kind === 'crew') {
      throw new UnknownCommandTargetError(
        id,
        `is a run of crew "${target.name}": only a flow run waits for events`,
      );
    }
    return await signalFlow(target.flow, { id, event, payload }, store, options, io);
  } finally {
    await store.close();
  }
}

/** The `--payload` option's value: its JSON parsed (undefined without one), or `invalid_option`. */
function payloadOf(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new InvalidOptionError('statecrew signal', '--payload', 'JSON', text, {
      message: `statecrew signal: --payload must be JSON (text in double quotes: '"paid"'): ${(error as Error).message}`,
    });
  }
}

/** Signals run `id` of `flow` with `event` and its payload, aborting it cleanly on SIGINT or SIGTERM. */
function signalFlow(
  flow: Flow<object>,
  signaled: { id: string; event: string; payload: unknown },
  store: Store,
  options: SignalCommandOptions,
  io: CliIo,
): Promise<number> {
  const { id, event, payload } = signaled;
  return goOnInterruptibly(id, options, io, async (signal) => {
    const out = await flow.signal(id, event, payload, { store, signal });
    io.stdout.write(options.json === true ? flowJson(out) : flowText(out));
    return out.status === 'failed' ? 1 : 0;
  });
}
