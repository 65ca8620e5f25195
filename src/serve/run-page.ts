import { RunNotFoundError } from '../errors.js';
import { ExecutionDocument } from '../runtime/crew/execution-document.js';
import { eventsSoFar } from '../runtime/durable/follow-events.js';
import { loadSnapshot } from '../runtime/flow/flow-store.js';
import { runInfo } from '../runtime/flow/snapshot.js';
import type { Store } from '../stores/store.js';
import type { StatecrewEvent } from '../types.js';
import { toCrewView } from '../view/crew-view.js';
import { toFlowView } from '../view/flow-view.js';
import type { RunView } from '../view/model.js';
import type { Catalog, ServedDefinition } from './definitions.js';

/** A run's view as its definition draws it, from its kept events or, when it kept none, its stored state. */
function viewOf(served: ServedDefinition, events: readonly StatecrewEvent[]): RunView | undefined {
  if (events.length === 0) return undefined;
  return served.kind === 'crew' ? toCrewView(served.crew, { events }) : toFlowView(served.flow, { events });
}

/** A run that kept no events, drawn from what its store keeps of it (its execution document, or its snapshot). */
async function storedView(store: Store, served: ServedDefinition, id: string): Promise<RunView> {
  if (served.kind === 'crew') {
    const document = await ExecutionDocument.fromStore(store, id);
    return toCrewView(served.crew, document?.toJSON());
  }
  const snapshot = await loadSnapshot(store, id);
  return toFlowView(served.flow, snapshot === undefined ? undefined : runInfo(snapshot));
}

/**
 * The view of stored run `id` (`GET /runs/:id/view`, what the studio draws): the graph of the
 * definition it ran, coloured by its kept events — or, for a run that kept none, by its stored state.
 * `run_not_found` for an unknown run; `unknown_definition` when this server does not serve its
 * definition (there is nothing to draw it with).
 */
export async function runPageView(store: Store, catalog: Catalog, id: string): Promise<RunView> {
  const head = await store.readRun(id);
  if (head === undefined) throw new RunNotFoundError('GET /runs/:id/view', id);
  const served = catalog.get(head.name);
  const events = (await eventsSoFar(store, id)).map((kept) => kept.event);
  const view = viewOf(served, events) ?? (await storedView(store, served, id));
  view.id = id;
  return view;
}
