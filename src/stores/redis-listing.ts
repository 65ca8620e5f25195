import type { Redis } from 'ioredis';
import { headKey, statusSetKeys } from './redis-keys.js';
import { headFromRow, type RawHeadRow } from './run-head.js';
import { matchesListing, type RunListing, selectHeads } from './run-listing.js';
import { type RunHead, STORED_RUN_STATUSES, type StoredRunStatus } from './store.js';

/** Sends commands in one pipeline (one round trip) and resolves with their replies, in order. */
export async function pipelined<T>(client: Redis, commands: (string | number)[][]): Promise<T[]> {
  if (commands.length === 0) return [];
  const replies = (await client.pipeline(commands).exec()) ?? [];
  return commands.map((_, i) => {
    const [error, reply] = replies[i] ?? [new Error('no reply'), undefined];
    if (error) throw error;
    return reply as T;
  });
}

/** Epoch ms from a TIME reply (seconds and microseconds, as text). */
export function serverMs(time: unknown): number {
  const [seconds, micros] = (time as [string, string]).map(Number) as [number, number];
  return seconds * 1000 + Math.floor(micros / 1000);
}

/** A head's hash with its lease's time left at `now`, the server's clock. */
export function withRemaining(hash: Record<string, string>, now: number): RawHeadRow {
  const expires = Number(hash.expires_at);
  const row = hash as RawHeadRow;
  return hash.expires_at !== undefined && Number.isFinite(expires)
    ? { ...row, remaining_ms: expires - now }
    : row;
}

/** The fields a listing filters by, read before any head's data. */
const LISTED_FIELDS = ['id', 'status', 'name', 'created_at'] as const;

/** A run a status set lists, with the fields a listing filters by (null where its head is gone). */
interface Listed {
  status: StoredRunStatus;
  member: string;
  fields: (string | null)[];
}

/** The entries whose head matches `listing` and is a page's, as far as the fields read tell. */
function chosenEntries(listed: Listed[], listing: RunListing): Entry[] {
  const light = listed.flatMap(({ status, member, fields }) => {
    const [id, current, name, createdAt] = fields;
    // An entry whose head expired, or that a head created again since left in another set, is no run.
    if (current !== status || id == null || name == null) return [];
    const head = { id, status, name, createdAt: Number(createdAt), member } as RunHead & Entry;
    return matchesListing(head, listing) ? [head] : [];
  });
  return (selectHeads(light, listing) as (RunHead & Entry)[]).map(({ status, member }) => ({
    status,
    member,
  }));
}

/** A run as a status set lists it. */
interface Entry {
  status: StoredRunStatus;
  member: string;
}

/** For a page, the entries of its runs alone: the fields it filters by read first, in one round trip. */
async function pageEntries(
  client: Redis,
  prefix: string,
  entries: Entry[],
  listing: RunListing,
): Promise<Entry[]> {
  if (listing.limit === null) return entries;
  const fields = await pipelined<(string | null)[]>(
    client,
    entries.map(({ member }) => ['hmget', headKey(prefix, member), ...LISTED_FIELDS]),
  );
  return chosenEntries(
    entries.map((entry, i) => ({ ...entry, fields: fields[i] ?? [] })),
    listing,
  );
}

/**
 * The heads `listing` returns, from the status sets it names, in two round trips (the sets, then the
 * heads and the server's time); a page reads the fields it filters by in between, then the whole heads
 * of its own runs alone, not every one.
 */
export async function listRedisHeads(client: Redis, prefix: string, listing: RunListing): Promise<RunHead[]> {
  const statuses = listing.statuses ?? [...STORED_RUN_STATUSES];
  const sets = statusSetKeys(prefix);
  const members = await pipelined<string[]>(
    client,
    statuses.map((status) => ['zrange', sets[status], '0', '-1']),
  );
  const entries = statuses.flatMap((status, i) => (members[i] ?? []).map((member) => ({ status, member })));
  const chosen = await pageEntries(client, prefix, entries, listing);
  const [time, ...hashes] = await pipelined<unknown>(client, [
    ['time'],
    ...chosen.map(({ member }) => ['hgetall', headKey(prefix, member)]),
  ]);
  const now = serverMs(time);
  // An entry whose head expired, or that a head created again since left in another set, is no run.
  const heads = (hashes as Record<string, string>[])
    .filter((hash, i) => hash.status === chosen[i]?.status)
    .map((hash) => headFromRow(withRemaining(hash, now)));
  // Judged again whole: a head that changed between the reads is listed as it is now.
  return selectHeads(heads, listing);
}
