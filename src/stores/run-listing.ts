import { InvalidOptionError } from '../errors.js';
import { checkTime, listStatuses } from './run-head.js';
import type { RunFilter, RunHead, RunPosition, Store, StoredRunStatus } from './store.js';

/** A listing's filter as checked: every bound present or null, the form every store queries with. */
export interface RunListing {
  statuses: StoredRunStatus[] | null;
  name: string | null;
  createdFrom: number | null;
  createdBefore: number | null;
  /** Only the runs of this thread (read from `run_threads`), or null for every run. */
  thread: string | null;
  /** A page's size, or null for every match (sorted by id). */
  limit: number | null;
  after: RunPosition | null;
}

/** The position a page starts after, checked. */
function positionOf(store: string, after: unknown): RunPosition | null {
  if (after === undefined) return null;
  const position = after as Partial<RunPosition> | null;
  if (typeof position?.id !== 'string') {
    throw new InvalidOptionError(store, 'page.after', 'a position { createdAt, id }', after);
  }
  checkTime(store, 'page.after.createdAt', position.createdAt);
  return { createdAt: position.createdAt, id: position.id };
}

/** `filter` checked (`invalid_option` naming the first field wrong), with its bounds made explicit. */
export function runListing(store: string, filter: RunFilter = {}): RunListing {
  const { name, createdFrom, createdBefore, page, thread } = filter;
  if (name !== undefined && typeof name !== 'string') {
    throw new InvalidOptionError(store, 'name', 'a definition name', name);
  }
  if (thread !== undefined && !(typeof thread === 'string' && thread !== '' && !thread.includes('\u0000'))) {
    throw new InvalidOptionError(store, 'thread', 'a thread name (a non-empty string without NUL)', thread);
  }
  if (createdFrom !== undefined) checkTime(store, 'createdFrom', createdFrom);
  if (createdBefore !== undefined) checkTime(store, 'createdBefore', createdBefore);
  const limit = page?.limit;
  if (page !== undefined && (!Number.isInteger(limit) || (limit as number) < 1)) {
    throw new InvalidOptionError(store, 'page.limit', 'a whole number from 1', limit);
  }
  return {
    statuses: listStatuses(store, filter) ?? null,
    name: name ?? null,
    createdFrom: createdFrom ?? null,
    createdBefore: createdBefore ?? null,
    thread: thread ?? null,
    limit: limit ?? null,
    after: positionOf(store, page?.after),
  };
}

/** JavaScript's order of ids: what every listing sorts by, whatever a database's collation says. */
export function byId(a: RunHead, b: RunHead): number {
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** Newest first; runs created in the same millisecond by id, descending: a page's order. */
export function newestFirst(a: RunPosition, b: RunPosition): number {
  if (a.createdAt !== b.createdAt) return b.createdAt - a.createdAt;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

/** Whether `head` matches every bound of `listing` (the page's position included). */
export function matchesListing(head: RunHead, listing: RunListing): boolean {
  if (listing.statuses !== null && !listing.statuses.includes(head.status)) return false;
  if (listing.name !== null && head.name !== listing.name) return false;
  if (listing.createdFrom !== null && head.createdAt < listing.createdFrom) return false;
  if (listing.createdBefore !== null && head.createdAt >= listing.createdBefore) return false;
  return listing.after === null || newestFirst(listing.after, head) < 0;
}

/**
 * The heads a listing returns from heads already filtered as a store could (or not at all): those
 * that match, by id, or one page of them newest first. What a store without a query language runs.
 */
export function selectHeads(heads: readonly RunHead[], listing: RunListing): RunHead[] {
  const matched = heads.filter((head) => matchesListing(head, listing));
  if (listing.limit === null) return matched.sort(byId);
  return matched.sort(newestFirst).slice(0, listing.limit);
}

/** Heads a database returned in a listing's order: by id unless they are a page (already in order). */
export function inListingOrder(heads: RunHead[], listing: RunListing): RunHead[] {
  return listing.limit === null ? heads.sort(byId) : heads;
}

/**
 * The runs of `listing.thread`, read the same way from every store: the thread's entries in
 * `run_threads` (in the order they were taken), each run's head (a pruned run's is gone and left
 * out), the other bounds applied; oldest first, or one page of them newest first.
 */
export async function listThreadRuns(
  store: Store,
  listing: RunListing & { thread: string },
): Promise<RunHead[]> {
  const entries = await store.list('run_threads', listing.thread);
  const ids: string[] = [];
  for (const { value } of entries) {
    const runId = (value as { runId?: unknown } | null)?.runId;
    if (typeof runId === 'string' && runId !== '' && !ids.includes(runId)) ids.push(runId);
  }
  const heads = await Promise.all(ids.map((id) => store.readRun(id)));
  const matched = heads.filter(
    (head): head is RunHead =>
      head !== undefined && threadOf(head) === listing.thread && matchesListing(head, listing),
  );
  return listing.limit === null ? matched : matched.sort(newestFirst).slice(0, listing.limit);
}

/** Whether a listing is of one thread's runs. */
export function isThreadListing(listing: RunListing): listing is RunListing & { thread: string } {
  return listing.thread !== null;
}

/** The thread a run's head names in its data (`data.thread`), if any. */
function threadOf(head: RunHead): string | undefined {
  const data = head.data;
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return undefined;
  return typeof data.thread === 'string' ? data.thread : undefined;
}
