import { StoreRequiredError } from '../../errors.js';
import type { Store } from '../../stores/store.js';
import { checkRunId } from '../durable/claim.js';
import { DEFAULT_LEASE_MS } from '../durable/run-owner.js';
import { optionalInteger } from '../engine/validate.js';
import { checkInputs } from '../run/inputs.js';
import type { FlowDefinition } from './definition.js';
import type { StoredFlowSnapshot } from './flow-store.js';
import { checkForcedRoutes, type ForcedRoutes } from './forced-routes.js';
import { createState, type WithId } from './state.js';
import { validateTriggers } from './validate.js';

/** A checked kickoff: what it forces, the inputs and state its run starts from, and where it is kept. */
export interface FlowKickoff<S> {
  forced: ReadonlyMap<string, string | readonly string[]>;
  inputs: Record<string, unknown>;
  state: WithId<S>;
  store: Store | undefined;
}

/** What a kickoff's checks read of its options. */
export interface KickoffOptions {
  inputs?: Record<string, unknown> | undefined;
  maxInputBytes?: number | undefined;
  routes?: ForcedRoutes | undefined;
  store?: Store | undefined;
}

/**
 * Checks a kickoff before anything of its run exists, in this order: the definition's triggers
 * (`unknown_trigger`, `no_start`), the forced routers (`unknown_router`), the inputs (`invalid_inputs`,
 * also over `maxInputBytes` or 100 levels deep;
 * an `inputs.id` that cannot be a run id, `invalid_option`) and the state they make, and a store for
 * its human steps (`store_required`). A resumed run starts from its stored inputs and state, which
 * were checked when it began.
 */
export function checkKickoff<S>(
  definition: FlowDefinition<S>,
  options: KickoffOptions,
  resumed: StoredFlowSnapshot | undefined,
): FlowKickoff<S> {
  validateTriggers(definition);
  const forced = checkForcedRoutes(definition, options.routes);
  const where = `Flow "${definition.name}" kickoff`;
  const inputs =
    resumed === undefined
      ? checkInputs(where, options.inputs, options.maxInputBytes)
      : (resumed.inputs as Record<string, unknown>);
  if (resumed === undefined && inputs.id !== undefined) checkRunId(where, 'inputs.id', inputs.id);
  const state =
    resumed === undefined
      ? (createState(definition.name, definition.state, inputs) as WithId<S>)
      : (resumed.state as WithId<S>);
  const store = options.store ?? definition.store;
  if (store === undefined) checkUnstoredHumans(definition, forced);
  return { forced, inputs, state, store };
}

/** A run with no store cannot pause: every human and wait step must have its outcome forced (`store_required`). */
function checkUnstoredHumans<S>(
  definition: FlowDefinition<S>,
  forced: ReadonlyMap<string, string | readonly string[]>,
): void {
  const unanswerable = definition.steps.find(
    (s) => (s.kind === 'human' || s.kind === 'wait') && !forced.has(s.name),
  );
  if (unanswerable !== undefined) {
    const human = unanswerable.kind === 'human';
    throw new StoreRequiredError(
      `Flow "${definition.name}" (${human ? 'human' : 'wait'} step "${unanswerable.name}")`,
      human ? 'pause for a human and resume' : 'pause for an outside event and be signalled',
    );
  }
}

/** The lease of a run: the option's, else the flow's, else the default (`invalid_option` unless an integer ≥ 10). */
export function leaseMsOf(
  definition: { name: string; leaseMs?: number | undefined },
  options: { leaseMs?: number | undefined },
): number {
  const leaseMs = options.leaseMs ?? definition.leaseMs ?? DEFAULT_LEASE_MS;
  optionalInteger(`Flow "${definition.name}" kickoff`, 'leaseMs', leaseMs, 10);
  return leaseMs;
}
