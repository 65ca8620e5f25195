import { RunNotFoundError } from '../errors.js';
import { ExecutionDocument } from '../runtime/crew/execution-document.js';
import { eventsSoFar } from '../runtime/durable/follow-events.js';
import { loadSnapshot } from '../runtime/flow/flow-store.js';
import { runInfo } from '../runtime/flow/snapshot.js';
import type { RunHead, Store } from '../stores/store.js';
import type { StatecrewEvent } from '../types.js';
import { toCrewView } from '../view/crew-view.js';
import { toFlowView } from '../view/flow-view.js';
import type { RunView } from '../view/model.js';
import { withEarlierSegments } from '../view/segments.js';
import { storedCrewView, storedFlowView } from '../view/stored-run.js';
import type { Catalog, ServedDefinition } from './definitions.js';

/** How a run is drawn: with its served definition, or — when this server does not serve it — from what it kept alone. */
type Drawing = ServedDefinition | { kind: 'crew' | 'flow'; name: string; served: false };

/** A run's view from its kept events. */
function eventView(drawing: Drawing, events: readonly StatecrewEvent[], process: string): RunView {
  if ('served' in drawing) {
    return drawing.kind === 'crew'
      ? storedCrewView(drawing.name, process, { events })
      : storedFlowView(drawing.name, { events });
  }
  return drawing.kind === 'crew'
    ? toCrewView(drawing.crew, { events })
    : toFlowView(drawing.flow, { events });
}

/** A run's view from what its store keeps of it (its execution document, or its snapshot). */
async function storedView(store: Store, drawing: Drawing, id: string): Promise<RunView> {
  if (drawing.kind === 'crew') {
    const data = (await ExecutionDocument.fromStore(store, id))?.toJSON();
    if (!('served' in drawing)) return toCrewView(drawing.crew, data);
    return storedCrewView(drawing.name, data?.process ?? '', data ?? { events: [] });
  }
  const snapshot = await loadSnapshot(store, id);
  if (!('served' in drawing))
    return toFlowView(drawing.flow, snapshot === undefined ? undefined : runInfo(snapshot));
  return storedFlowView(drawing.name, snapshot ?? { events: [] });
}

/** What draws the runs of `head`'s definition. */
function drawingOf(catalog: Catalog, head: RunHead): Drawing {
  const served = catalog.list().find((d) => d.name === head.name);
  return served ?? { kind: head.kind, name: head.name, served: false };
}

/**
 * The view of stored run `id` (`GET /runs/:id/view`, what the studio draws): the graph of the
 * definition it ran, coloured by its kept events — completed by its stored state where the events
 * begin later than the run (it kept them from a resume on) — or, for a run that kept none, by its
 * stored state. A run of a definition this server does not serve is drawn from what it kept alone: a
 * node per step or task it reached, without edges. `run_not_found` for an unknown run.
 */
export async function runPageView(store: Store, catalog: Catalog, id: string): Promise<RunView> {
  const head = await store.readRun(id);
  if (head === undefined) throw new RunNotFoundError('GET /runs/:id/view', id);
  const drawing = drawingOf(catalog, head);
  const events = (await eventsSoFar(store, id)).map((kept) => kept.event);
  const stored = await storedView(store, drawing, id);
  const view =
    events.length === 0
      ? stored
      : withEarlierSegments(eventView(drawing, events, stored.process ?? ''), stored, head.createdAt);
  view.id = id;
  return view;
}
