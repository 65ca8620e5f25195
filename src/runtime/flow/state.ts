import { InvalidInputsError, InvalidOptionError, InvalidStateError } from '../../errors.js';
import type { StateSource } from './definition.js';

/** Every flow state carries a stable id. */
export type WithId<S> = S & { id: string };

/** What a flow's `initialState` must be, as its `invalid_option` says it. */
const COPYABLE_STATE = 'an object structuredClone can copy (each run starts from a deep copy of it)';

/**
 * A deep copy of `initial`, the state every run of a flow starts from. One that `structuredClone`
 * cannot copy (it holds a function or a symbol, say) is refused with `invalid_option`, naming `where`.
 */
export function copyInitialState(where: string, initial: unknown): Record<string, unknown> {
  if (typeof initial !== 'object' || initial === null || Array.isArray(initial)) {
    throw new InvalidOptionError(where, 'initialState', 'an object', initial);
  }
  try {
    return structuredClone(initial) as Record<string, unknown>;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    const message = `${where}: option "initialState" must be ${COPYABLE_STATE}, but ${reason}`;
    throw new InvalidOptionError(where, 'initialState', COPYABLE_STATE, initial, { message });
  }
}

/**
 * A run's fresh state: a deep copy of the initial state (or what the schema makes of the inputs), with
 * the inputs merged in and an `id` (the one given in `inputs.id`, else a random UUID). Inputs that do not
 * fit a schema fail with `invalid_inputs`.
 */
export function createState<S>(
  flow: string,
  source: StateSource<S>,
  inputs: Readonly<Record<string, unknown>>,
): WithId<S> {
  const { id: givenId, ...rest } = inputs;
  let state: Record<string, unknown>;
  if (source.kind === 'free') {
    state = Object.assign(copyInitialState(`Flow "${flow}"`, source.initial), rest);
  } else {
    const parsed = source.schema.safeParse(rest);
    if (!parsed.success) throw InvalidInputsError.notFitting(flow, parsed.error.issues);
    state = parsed.data as Record<string, unknown>;
  }
  const existing = typeof state.id === 'string' ? state.id : undefined;
  state.id =
    typeof givenId === 'string' && givenId !== '' ? givenId : (existing ?? globalThis.crypto.randomUUID());
  return state as WithId<S>;
}

/**
 * Checks a state after `step` ran: its id is still the run's (`id`; one a step changed is put back,
 * and the step fails), and it fits its schema (`invalid_state` with the issue paths).
 */
export function checkState<S>(
  source: StateSource<S>,
  state: WithId<unknown>,
  step: string,
  id: string,
): void {
  if (state.id !== id) {
    const changed = state.id;
    state.id = id;
    throw InvalidStateError.idChanged(step, id, changed);
  }
  if (source.kind !== 'schema') return;
  const parsed = source.schema.safeParse(state);
  if (!parsed.success) throw new InvalidStateError(step, parsed.error.issues);
}
