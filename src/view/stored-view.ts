import { ExecutionDocument } from '../runtime/crew/execution-document.js';
import { eventsSoFar } from '../runtime/durable/follow-events.js';
import { loadSnapshot } from '../runtime/flow/flow-store.js';
import type { RunHead, Store } from '../stores/store.js';
import type { RunView, ViewNode } from './model.js';
import { withEarlierSegments } from './segments.js';
import { storedCrewEdges, storedCrewView } from './stored-crew.js';
import { storedFlowView } from './stored-run.js';

/** A stored run's picture from what its store keeps of it alone (its execution document, or its snapshot). */
async function keptView(store: Store, head: RunHead): Promise<RunView> {
  if (head.kind === 'crew') {
    const data = (await ExecutionDocument.fromStore(store, head.id))?.toJSON();
    return storedCrewView(head.name, data?.process ?? '', data ?? { events: [] });
  }
  return storedFlowView(head.name, (await loadSnapshot(store, head.id)) ?? { events: [] });
}

/**
 * The nodes of both pictures: the stored state's (the run reached them first), as the events drew
 * them when they did, then those only the events saw. A node the events did not see keeps its
 * stored runs (`withEarlierSegments` takes them).
 */
function allNodes(seen: readonly ViewNode[], stored: readonly ViewNode[]): ViewNode[] {
  const seenById = new Map(seen.map((node) => [node.id, node]));
  const storedIds = new Set(stored.map((node) => node.id));
  return [
    ...stored.map((node) => seenById.get(node.id) ?? { ...node, runs: [] }),
    ...seen.filter((node) => !storedIds.has(node.id)),
  ];
}

/**
 * The picture of stored run `head` drawn from its store alone, without its definition (what the
 * studio and `GET /runs/:id/view` draw for a definition the server does not serve, and `statecrew
 * plot <id>` for a run a server or code started): from its kept events — completed by its stored
 * state where they begin later than the run — or, for a run that kept none, from its stored state.
 * A node per step or task it reached; edges only for a sequential crew (see `storedCrewView`).
 */
export async function storedRunView(store: Store, head: RunHead): Promise<RunView> {
  const events = (await eventsSoFar(store, head.id)).map((kept) => kept.event);
  const stored = await keptView(store, head);
  if (events.length === 0) return stored;
  const seen =
    head.kind === 'crew'
      ? storedCrewView(head.name, stored.process ?? '', { events })
      : storedFlowView(head.name, { events });
  seen.nodes = allNodes(seen.nodes, stored.nodes);
  const view = withEarlierSegments(seen, stored, head.createdAt);
  if (view.kind === 'crew') view.edges = storedCrewEdges(view.process ?? '', view.nodes);
  view.id = head.id;
  return view;
}
