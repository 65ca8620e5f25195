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

/** The members whose head matches `listing`, as far as the fields read tell (a page: only its own). */
function chosenMembers(listed: Listed[], listing: RunListing): string[] {
  const light = listed.flatMap(({ status, member, fields }) => {
    const [id, current, name, createdAt] = fields;
    // An entry whose head expired, or that a head created again since left in another set, is no run.
    if (current !== status || id == null || name == null) return [];
    const head = { id, status, name, createdAt: Number(createdAt), member } as RunHead & { member: string };
    return matchesListing(head, listing) ? [head] : [];
  });
  return (selectHeads(light, listing) as (RunHead & { member: string })[]).map((head) => head.member);
}

/**
 * The heads `listing` returns, from the status sets it names: the fields it filters by first, then
 * the whole heads of the runs chosen alone (a page reads its page of heads, not every one).
 */
export async function listRedisHeads(client: Redis, prefix: string, listing: RunListing): Promise<RunHead[]> {
  const statuses = listing.statuses ?? [...STORED_RUN_STATUSES];
  const sets = statusSetKeys(prefix);
  const members = await pipelined<string[]>(
    client,
    statuses.map((status) => ['zrange', sets[status], '0', '-1']),
  );
  const entries = statuses.flatMap((status, i) => (members[i] ?? []).map((member) => ({ status, member })));
  const fields = await pipelined<(string | null)[]>(
    client,
    entries.map(({ member }) => ['hmget', headKey(prefix, member), ...LISTED_FIELDS]),
  );
  const chosen = chosenMembers(
    entries.map((entry, i) => ({ ...entry, fields: fields[i] ?? [] })),
    listing,
  );
  const [time, ...hashes] = await pipelined<unknown>(client, [
    ['time'],
    ...chosen.map((member) => ['hgetall', headKey(prefix, member)]),
  ]);
  const now = serverMs(time);
  const heads = (hashes as Record<string, string>[])
    .filter((hash) => Object.keys(hash).length > 0)
    .map((hash) => headFromRow(withRemaining(hash, now)));
  // Read again whole: a head changed between the two reads is judged as it is now.
  return selectHeads(heads, listing);
}
