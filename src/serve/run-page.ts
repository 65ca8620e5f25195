import { RunNotFoundError } from '../errors.js';
import { ExecutionDocument } from '../runtime/crew/execution-document.js';
import { eventsSoFar } from '../runtime/durable/follow-events.js';
import { loadSnapshot } from '../runtime/flow/flow-store.js';
import { runInfo } from '../runtime/flow/snapshot.js';
import type { RunHead, Store } from '../stores/store.js';
import { toCrewView } from '../view/crew-view.js';
import { toFlowView } from '../view/flow-view.js';
import type { RunView } from '../view/model.js';
import { withEarlierSegments } from '../view/segments.js';
import { storedRunView } from '../view/stored-view.js';
import type { Catalog, ServedDefinition } from './definitions.js';

/** A run's view from what its store keeps of it (its execution document, or its snapshot). */
async function keptView(store: Store, served: ServedDefinition, id: string): Promise<RunView> {
  if (served.kind === 'crew')
    return toCrewView(served.crew, (await ExecutionDocument.fromStore(store, id))?.toJSON());
  const snapshot = await loadSnapshot(store, id);
  return toFlowView(served.flow, snapshot === undefined ? undefined : runInfo(snapshot));
}

/** A run of a served definition, drawn with it: its kept events, completed by its stored state. */
async function servedView(store: Store, served: ServedDefinition, head: RunHead): Promise<RunView> {
  const events = (await eventsSoFar(store, head.id)).map((kept) => kept.event);
  const stored = await keptView(store, served, head.id);
  if (events.length === 0) return stored;
  const seen =
    served.kind === 'crew' ? toCrewView(served.crew, { events }) : toFlowView(served.flow, { events });
  return withEarlierSegments(seen, stored, head.createdAt);
}

/**
 * The view of stored run `id` (`GET /runs/:id/view`, what the studio draws): the graph of the
 * definition it ran, coloured by its kept events — completed by its stored state where the events
 * begin later than the run (it kept them from a resume on) — or, for a run that kept none, by its
 * stored state. A run of a definition this server does not serve is drawn from what it kept alone
 * (`storedRunView`: a node per step or task it reached, edges only for a sequential crew).
 * `run_not_found` for an unknown run.
 */
export async function runPageView(store: Store, catalog: Catalog, id: string): Promise<RunView> {
  const head = await store.readRun(id);
  if (head === undefined) throw new RunNotFoundError('GET /runs/:id/view', id);
  const served = catalog.list().find((d) => d.name === head.name);
  const view =
    served === undefined ? await storedRunView(store, head) : await servedView(store, served, head);
  view.id = id;
  return view;
}
