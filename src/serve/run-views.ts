import { InvalidRequestError, RunNotFoundError } from '../errors.js';
import { pendingOfRecords, storedInputs } from '../runtime/crew/crew-resume.js';
import { ExecutionDocument } from '../runtime/crew/execution-document.js';
import { headFacts } from '../runtime/durable/history-page.js';
import { leaseIsLive } from '../runtime/durable/identity.js';
import { RUN_KEY } from '../runtime/durable/run-key.js';
import { loadSnapshot } from '../runtime/flow/flow-store.js';
import { runInfo } from '../runtime/flow/snapshot.js';
import type { JsonValue, RunHead, RunPosition, Store, StoredRunStatus } from '../stores/store.js';
import type { RunLineage } from '../types.js';
import { jsonSafe } from './json-safe.js';
import type { LiveRuns } from './live-runs.js';

/** A run as `GET /runs` lists it. */
export interface RunSummary {
  id: string;
  definition: string;
  kind: 'crew' | 'flow';
  status: StoredRunStatus;
  createdAt: string;
  updatedAt: string;
  owner: string | null;
  /** A fork: the run and checkpoint it was forked from. */
  forkedFrom?: RunLineage;
  /** The thread the run belongs to, if it was kicked off on one. */
  thread?: string;
}

/** A page of runs, and where the next one starts (null on the last page). */
export interface RunPage {
  runs: RunSummary[];
  nextCursor: string | null;
}

/** What `GET /runs` filters and pages by. */
export interface RunQuery {
  status?: StoredRunStatus | undefined;
  definition?: string | undefined;
  /** Only the runs of this thread. */
  thread?: string | undefined;
  /** Only runs created at or after this time (ISO 8601). */
  createdFrom?: string | undefined;
  /** Only runs created before this time (ISO 8601). */
  createdBefore?: string | undefined;
  limit: number;
  cursor?: string | undefined;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** A head as a run summary. */
export function summaryOf(head: RunHead): RunSummary {
  return {
    id: head.id,
    definition: head.name,
    kind: head.kind,
    status: head.status,
    createdAt: iso(head.createdAt),
    updatedAt: iso(head.updatedAt),
    owner: head.lease?.owner ?? null,
    ...headFacts(head),
  };
}

/** A position as an opaque cursor. */
function cursorOf(position: RunPosition): string {
  return Buffer.from(JSON.stringify([position.createdAt, position.id])).toString('base64url');
}

/** The position a cursor names; `invalid_request` for a cursor this server did not give. */
function positionOf(cursor: string): RunPosition {
  try {
    const [createdAt, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    if (typeof createdAt === 'number' && typeof id === 'string') return { createdAt, id };
  } catch {
    // Not JSON: refused below like any other cursor this server did not give.
  }
  throw new InvalidRequestError('GET /runs', [
    { path: 'query.cursor', message: 'is not a cursor this server gave (pass nextCursor as it came)' },
  ]);
}

/**
 * One page of the stored runs, newest first, filtered by status, definition and creation time: the
 * store filters and pages, asked for one run more than the page to tell whether another follows.
 */
export async function listRuns(store: Store, query: RunQuery): Promise<RunPage> {
  const after = query.cursor === undefined ? undefined : positionOf(query.cursor);
  const ms = (time: string | undefined) => (time === undefined ? undefined : Date.parse(time));
  const heads = await store.listRuns({
    ...(query.status === undefined ? {} : { statuses: [query.status] }),
    name: query.definition,
    ...(query.thread === undefined ? {} : { thread: query.thread }),
    createdFrom: ms(query.createdFrom),
    createdBefore: ms(query.createdBefore),
    page: { limit: query.limit + 1, after },
  });
  const page = heads.slice(0, query.limit);
  const last = page.at(-1);
  const more = heads.length > page.length && last !== undefined;
  return { runs: page.map(summaryOf), nextCursor: more ? cursorOf(last) : null };
}

/**
 * A crew run's execution document as `GET /runs/:id` gives it. The document reads task results alone
 * and calls a run without its end document `interrupted`; one whose owner still holds a live lease
 * (here, or in a worker process) is `running`, as its head says.
 */
function executionOf(document: ExecutionDocument, head: RunHead): JsonValue {
  const data = document.toJSON();
  if (data.status !== 'interrupted' || !leaseIsLive(head.lease, Date.now())) return jsonSafe(data);
  const completed = data.results.filter((r) => r.status === 'completed').length;
  const summary = `${completed} completed, ${data.results.length - completed} failed, running`;
  return jsonSafe({ ...data, status: 'running', summary });
}

/**
 * `GET /runs/:id`: the run's summary, its inputs, whether this server runs it now, and what its kind
 * keeps: a flow's stored state, trail, outputs and pending steps; a crew's execution document and
 * what it waits for.
 */
export async function runDetail(store: Store, live: LiveRuns, id: string): Promise<Record<string, unknown>> {
  const head = await store.readRun(id);
  if (head === undefined) throw new RunNotFoundError('GET /runs/:id', id);
  const base = {
    ...summaryOf(head),
    live: live.has(id),
    inputs: jsonSafe(storedInputs(head) ?? null),
  };
  if (head.kind === 'flow') {
    const snapshot = await loadSnapshot(store, id);
    const info = snapshot === undefined ? undefined : runInfo(snapshot);
    return {
      ...base,
      ...(info === undefined ? {} : { flow: jsonSafe(info) }),
      pending: jsonSafe(info?.waiting ?? []),
    };
  }
  // The task results are read once: the document and what the run waits for both come from them.
  const [run, rows] = await Promise.all([
    store.get('crew_executions', id, RUN_KEY),
    store.list('crew_task_results', id),
  ]);
  const document = ExecutionDocument.fromRecords(id, run, rows);
  const pending = pendingOfRecords(rows);
  return {
    ...base,
    ...(document === undefined ? {} : { execution: executionOf(document, head) }),
    pending: jsonSafe(pending),
  };
}
