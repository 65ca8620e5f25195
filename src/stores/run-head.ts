import { CorruptSnapshotError, InvalidOptionError } from '../errors.js';
import {
  checkAddress,
  encodeValue,
  type JsonValue,
  type PruneOptions,
  type RunClaim,
  type RunCommit,
  type RunFilter,
  type RunHead,
  type RunLease,
  SETTLED_RUN_STATUSES,
  STORED_RUN_STATUSES,
  type StoredRunStatus,
} from './store.js';

/**
 * What the stores share about run heads: checking what they are given, and the flat row a head is
 * kept as (SQL columns, a Redis hash), so every store reads and writes heads the same way.
 */

const isStatus = (value: unknown): value is StoredRunStatus =>
  (STORED_RUN_STATUSES as readonly unknown[]).includes(value);

const isInteger = (value: unknown): value is number => Number.isSafeInteger(value);

/** Checks a time a store is asked to keep: whole epoch milliseconds, which every back-end holds exactly. */
export function checkTime(store: string, field: string, value: unknown): asserts value is number {
  if (!isInteger(value)) throw new InvalidOptionError(store, field, 'whole epoch milliseconds', value);
}

/** Checks a lease (or null) a store is asked to keep; `invalid_option` naming the store. */
export function checkLease(store: string, lease: RunLease | null): void {
  if (lease === null) return;
  const ok =
    typeof lease === 'object' &&
    typeof lease.owner === 'string' &&
    typeof lease.token === 'string' &&
    lease.token !== '' &&
    typeof lease.host === 'string' &&
    isInteger(lease.expiresAt) &&
    isInteger(lease.pid) &&
    isInteger(lease.thread) &&
    (lease.ttlMs === undefined || checkTtl(lease.ttlMs)) &&
    (lease.started === undefined || typeof lease.started === 'string');
  if (!ok) {
    throw new InvalidOptionError(
      store,
      'lease',
      'null or { owner, token, expiresAt, host, pid, thread, ttlMs?, started? }',
      lease,
    );
  }
}

/** Whether `ttl` is a lease length a store can add to its clock: whole ms, more than 0. */
function checkTtl(ttl: unknown): boolean {
  return isInteger(ttl) && ttl > 0;
}

/** A lease as a store that keeps time writes it: `expiresAt` from `now` (the store's clock) and its `ttlMs`. */
export function onStoreClock(lease: RunLease | null, now: number): RunLease | null {
  if (lease === null || lease.ttlMs === undefined) return lease;
  const { remainingMs: _ignored, ...kept } = lease;
  return { ...kept, expiresAt: now + lease.ttlMs };
}

/** Whether `lease` is live at `now` on the store's clock: a store never lets a claim or prune past it. */
export function liveOnStoreClock(lease: RunLease | null, now: number): boolean {
  return lease !== null && lease.expiresAt > now;
}

/** Checks a head a store is asked to create. */
export function checkHead(store: string, head: RunHead): void {
  if (typeof head !== 'object' || head === null) {
    throw new InvalidOptionError(store, 'head', 'a run head', head);
  }
  checkAddress(store, 'flow_runs', head.id);
  if (head.kind !== 'flow' && head.kind !== 'crew') {
    throw new InvalidOptionError(store, 'kind', 'flow or crew', head.kind);
  }
  if (typeof head.name !== 'string') throw new InvalidOptionError(store, 'name', 'a string', head.name);
  checkStatus(store, head.status);
  if (!isInteger(head.version) || head.version < 0) {
    throw new InvalidOptionError(store, 'version', 'an integer ≥ 0', head.version);
  }
  checkTime(store, 'createdAt', head.createdAt);
  checkTime(store, 'updatedAt', head.updatedAt);
  checkLease(store, head.lease);
  encodeValue(store, head.data);
}

/** Checks a lease renewal's expiry and, if given, its lease length. */
export function checkRenewal(store: string, expiresAt: number, ttlMs?: number): void {
  checkTime(store, 'expiresAt', expiresAt);
  if (ttlMs !== undefined && !checkTtl(ttlMs)) {
    throw new InvalidOptionError(store, 'ttlMs', 'whole ms, more than 0', ttlMs);
  }
}

/** The statuses a listing filters by, checked; undefined lists every status. */
export function listStatuses(store: string, filter: RunFilter | undefined): StoredRunStatus[] | undefined {
  const statuses = filter?.statuses;
  if (statuses === undefined) return undefined;
  if (!Array.isArray(statuses))
    throw new InvalidOptionError(store, 'statuses', 'an array of statuses', statuses);
  for (const status of statuses) checkStatus(store, status);
  return [...new Set(statuses)];
}

/** Checks a status a store is asked to set. */
export function checkStatus(store: string, status: unknown): asserts status is StoredRunStatus {
  if (!isStatus(status)) {
    throw new InvalidOptionError(store, 'status', `one of ${STORED_RUN_STATUSES.join(', ')}`, status);
  }
}

/** Checks a claim: its run id, expected version, status and lease. */
export function checkClaim(store: string, id: string, expectedVersion: number, claim: RunClaim): void {
  checkAddress(store, 'flow_runs', id);
  if (!isInteger(expectedVersion)) {
    throw new InvalidOptionError(store, 'expectedVersion', 'an integer', expectedVersion);
  }
  checkStatus(store, claim?.status);
  checkLease(store, claim.lease);
  if (claim.replaces !== undefined && typeof claim.replaces !== 'string') {
    throw new InvalidOptionError(store, 'replaces', 'a lease token', claim.replaces);
  }
}

/** Checks a commit: its run id, token, writes' addresses and status. */
export function checkCommit(store: string, id: string, commit: RunCommit): void {
  checkAddress(store, 'flow_runs', id);
  if (typeof commit?.token !== 'string' || commit.token === '') {
    throw new InvalidOptionError(store, 'token', 'a lease token', commit?.token);
  }
  if (!Array.isArray(commit.writes)) throw new InvalidOptionError(store, 'writes', 'an array', commit.writes);
  for (const write of commit.writes) checkAddress(store, write.collection, id, write.key);
  if (commit.status !== undefined) checkStatus(store, commit.status);
}

/** The statuses and time a prune deletes, checked. */
export function pruneBounds(
  store: string,
  options: PruneOptions,
): { before: number; statuses: StoredRunStatus[]; keepHistory: boolean } {
  const olderThan = options?.olderThan;
  const before = olderThan instanceof Date ? olderThan.getTime() : olderThan;
  if (typeof before !== 'number' || !Number.isSafeInteger(before)) {
    throw new InvalidOptionError(store, 'olderThan', 'whole epoch milliseconds or a valid Date', olderThan);
  }
  const statuses = listStatuses(store, { statuses: options.statuses ?? SETTLED_RUN_STATUSES }) ?? [];
  const keepHistory = options.keepHistory ?? false;
  if (typeof keepHistory !== 'boolean') {
    throw new InvalidOptionError(store, 'keepHistory', 'true or false', keepHistory);
  }
  return { before, statuses, keepHistory };
}

/** A head as flat fields: what SQL columns and Redis hash fields hold. */
export interface HeadRow {
  id: string;
  kind: string;
  name: string;
  status: string;
  version: number;
  /** The lease's token, or null when there is no lease: what a fence compares. */
  token: string | null;
  /** The lease's expiry, or null. */
  expires_at: number | null;
  /** The rest of the lease as JSON text (owner, host, pid, thread, and ttlMs, started if given), or null. */
  owner: string | null;
  /** The head's data as JSON text. */
  data: string;
  created_at: number;
  updated_at: number;
}

/** The columns a lease is kept in. */
export function leaseColumns(lease: RunLease | null): Pick<HeadRow, 'token' | 'expires_at' | 'owner'> {
  if (lease === null) return { token: null, expires_at: null, owner: null };
  const { owner, host, pid, thread, ttlMs, started } = lease;
  return {
    token: lease.token,
    expires_at: lease.expiresAt,
    owner: JSON.stringify({ owner, host, pid, thread, ttlMs, started }),
  };
}

/** A head as its row keeps it. */
export function headRow(head: RunHead): HeadRow {
  return {
    id: head.id,
    kind: head.kind,
    name: head.name,
    status: head.status,
    version: head.version,
    ...leaseColumns(head.lease),
    data: JSON.stringify(head.data),
    created_at: head.createdAt,
    updated_at: head.updatedAt,
  };
}

/**
 * A raw row, as a driver returns it: numbers may come back as strings (PostgreSQL BIGINT, Redis).
 * `remaining_ms`, when the store gives it, is the lease's time left on the store's clock.
 */
export type RawHeadRow = { [K in keyof HeadRow]: unknown } & { remaining_ms?: unknown };

const toNumber = (value: unknown): number => (typeof value === 'string' ? Number(value) : (value as number));

/** A head read back from its row; a row it cannot read is `corrupt_snapshot`, naming the run. */
export function headFromRow(row: RawHeadRow): RunHead {
  const id = String(row.id);
  const corrupt = (why: string) => new CorruptSnapshotError('runs', id, 'head', why);
  const version = toNumber(row.version);
  const createdAt = toNumber(row.created_at);
  const updatedAt = toNumber(row.updated_at);
  if ((row.kind !== 'flow' && row.kind !== 'crew') || !isStatus(row.status) || typeof row.name !== 'string') {
    throw corrupt('its kind, name or status is not one statecrew writes');
  }
  if (!isInteger(version) || !Number.isFinite(createdAt) || !Number.isFinite(updatedAt)) {
    throw corrupt('its version or times are not numbers');
  }
  let data: JsonValue;
  let lease: RunLease | null = null;
  try {
    data = JSON.parse(String(row.data)) as JsonValue;
    if (row.token !== null && row.token !== undefined && row.token !== '') {
      const owner = JSON.parse(String(row.owner)) as Omit<RunLease, 'token' | 'expiresAt'>;
      lease = { ...owner, token: String(row.token), expiresAt: toNumber(row.expires_at) };
      const remaining = toNumber(row.remaining_ms);
      if (Number.isFinite(remaining)) lease.remainingMs = remaining;
    }
  } catch (error) {
    throw corrupt((error as Error).message);
  }
  return {
    id,
    kind: row.kind,
    name: row.name,
    status: row.status,
    version,
    lease,
    data,
    createdAt,
    updatedAt,
  };
}
