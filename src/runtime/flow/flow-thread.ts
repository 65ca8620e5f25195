import { FlowMismatchError, InvalidOptionError } from '../../errors.js';
import type { Store } from '../../stores/store.js';
import { checkRunId } from '../durable/claim.js';
import { abandonThreadEntry, checkThread, claimThread } from '../durable/threads.js';
import { type ClockOption, toClock } from '../engine/clock.js';
import { checkInputs } from '../run/inputs.js';
import type { FlowDefinition } from './definition.js';
import { leaseMsOf } from './flow-kickoff.js';
import { forkInputs, storedRunOf, storeFor } from './flow-resume.js';
import type { FlowRunOptions } from './flow-run-options.js';

/** Where a run on a thread starts: its store, and its inputs (the previous run's state, the given inputs over it, its id). */
export interface ThreadStart {
  store: Store;
  inputs: Record<string, unknown>;
  /** Frees the thread's entry again when the run never came to hold its id. */
  abandon(): Promise<void>;
}

/**
 * Takes the thread's next entry for a new run of `definition` (`thread_busy` while its latest run is
 * running or paused) and reads where the run starts: the stored state of the thread's previous run
 * (`flow_mismatch` for another flow's run; the flow's initial state for a first run), `inputs`
 * merged over it, the run's id (`inputs.id`, else a fresh one). Needs a store (`store_required`).
 */
export async function threadStart(
  definition: FlowDefinition<unknown>,
  options: FlowRunOptions & { thread: string },
  clockOption: ClockOption | undefined,
): Promise<ThreadStart> {
  const where = `Flow "${definition.name}" kickoff`;
  const { thread } = options;
  checkThread(where, thread);
  if (options.from !== undefined) {
    throw new InvalidOptionError(
      where,
      'from',
      'unset with thread (a thread goes on from its last run)',
      options.from,
    );
  }
  const store = storeFor(definition, options.store, 'run on a thread');
  const inputs = checkInputs(where, options.inputs, options.maxInputBytes);
  if (inputs.id !== undefined) checkRunId(where, 'inputs.id', inputs.id);
  const id = (inputs.id as string | undefined) ?? globalThis.crypto.randomUUID();
  const leaseMs = leaseMsOf(definition, options);
  const previous = await claimThread(store, thread, id, toClock(clockOption), where, leaseMs);
  const abandon = () => abandonThreadEntry(store, thread, id);
  try {
    if (previous === undefined) return { store, inputs: { ...inputs, id }, abandon };
    if (previous.kind !== 'flow' || previous.name !== definition.name) {
      throw new FlowMismatchError(definition.name, previous.id, previous.name);
    }
    const source = await storedRunOf(definition, store, previous.id, `thread "${thread}"`);
    return { store, inputs: { ...forkInputs(source, inputs), id }, abandon };
  } catch (error) {
    await abandon();
    throw error;
  }
}
