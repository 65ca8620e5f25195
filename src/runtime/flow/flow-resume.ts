import { FlowMismatchError, NotPausedError, RunNotFoundError, StoreRequiredError } from '../../errors.js';
import type { Store } from '../../stores/store.js';
import type { FlowDefinition } from './definition.js';
import type { FlowOutput } from './flow-run.js';
import { loadSnapshot } from './flow-store.js';
import type { FlowSnapshot } from './snapshot.js';
import type { WithId } from './state.js';

/** The store a flow operation uses: the one it was given, else the flow's; `store_required` without. */
export function storeFor(
  definition: FlowDefinition<unknown>,
  store: Store | undefined,
  needs: string,
): Store {
  const chosen = store ?? definition.store;
  if (chosen === undefined) throw new StoreRequiredError(`Flow "${definition.name}"`, needs);
  return chosen;
}

/** The snapshot of run `id`, which must exist (`run_not_found`) and be a run of this flow (`flow_mismatch`). */
export async function storedRunOf(
  definition: FlowDefinition<unknown>,
  store: Store,
  id: string,
  what: string,
): Promise<FlowSnapshot> {
  const snapshot = await loadSnapshot(store, id);
  if (snapshot === undefined) throw new RunNotFoundError(`Flow "${definition.name}" ${what}`, id);
  if (snapshot.flow !== definition.name) throw new FlowMismatchError(definition.name, id, snapshot.flow);
  return snapshot;
}

/** Refuses an answer to a run that waits for none (`not_paused`). */
export function checkNoAnswer(
  definition: FlowDefinition<unknown>,
  snapshot: FlowSnapshot,
  answer: unknown,
): void {
  if (answer !== undefined) throw new NotPausedError(definition.name, snapshot.id, snapshot.status);
}

/** A completed run's result as its snapshot holds it (nothing runs; `totalTimeMs` 0). */
export function storedOutput<S>(snapshot: FlowSnapshot): FlowOutput<WithId<S>> {
  const last = snapshot.trail.at(-1);
  return {
    id: snapshot.id,
    state: structuredClone(snapshot.state) as WithId<S>,
    output: last === undefined ? undefined : snapshot.outputs[last],
    trail: [...snapshot.trail],
    outputs: { ...snapshot.outputs },
    emitted: [...snapshot.emitted],
    status: snapshot.status === 'failed' ? 'failed' : 'completed',
    errors: { ...snapshot.errors },
    failures: { ...snapshot.failures },
    totalTimeMs: 0,
  };
}

/** A fork's inputs: the stored state (without its id) with the given inputs merged over it. */
export function forkInputs(
  snapshot: FlowSnapshot,
  inputs: Record<string, unknown> | undefined,
): Record<string, unknown> {
  const { id: _sourceId, ...state } = structuredClone(snapshot.state) as Record<string, unknown>;
  return { ...state, ...(inputs ?? {}) };
}
