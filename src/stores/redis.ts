import type { Redis } from 'ioredis';
import { CorruptSnapshotError } from '../errors.js';
import { RedisConnection } from './redis-connection.js';
import {
  escapePart,
  indexKey,
  REDIS_STORE,
  type RedisRunKeys,
  recordKey,
  redisRecordKeys,
  redisRunKeys,
  runKeys,
  statusSetKeys,
  unescapePart,
} from './redis-keys.js';
import { listRedisHeads, pipelined, serverMs, withRemaining } from './redis-listing.js';
import { checkOptions, type RedisStoreOptions } from './redis-options.js';
import {
  CLAIM_RUN_SCRIPT,
  COMMIT_SCRIPT,
  CREATE_RUN_SCRIPT,
  PRUNE_RUN_SCRIPT,
  RENEW_LEASE_SCRIPT,
  type RedisScript,
  runScript,
  runScripts,
  WRITE_SCRIPT,
} from './redis-scripts.js';
import {
  checkClaim,
  checkCommit,
  checkHead,
  checkRenewal,
  headFromRow,
  headRow,
  leaseColumns,
  pruneBounds,
} from './run-head.js';
import { isThreadListing, listThreadRuns, runListing } from './run-listing.js';
import {
  decodeValue,
  encodeValue,
  type JsonValue,
  OpenState,
  type PruneOptions,
  type PruneResult,
  RUN_COLLECTIONS,
  type RunClaim,
  type RunCommit,
  type RunFilter,
  type RunHead,
  STORE_FORMAT_VERSION,
  STORED_RUN_STATUSES,
  type Store,
  type StoreCollection,
  type StoredRecord,
  type StoredRunStatus,
} from './store.js';

export { type RedisRecordKeys, type RedisRunKeys, redisRecordKeys, redisRunKeys } from './redis-keys.js';
export type { RedisStoreBaseOptions, RedisStoreOptions } from './redis-options.js';

const NAME = REDIS_STORE;

/**
 * A store in Redis: each record a hash, each execution a sorted set of its keys in first-write order
 * (layout: {@link redisRecordKeys}); each run's head a hash, listed in one sorted set per status
 * scored by its last change (layout: {@link redisRunKeys}). Every write is a single Lua script (one
 * round trip, sent by SHA), so it is atomic across writers; an optional TTL expires finished runs.
 * Calls fail fast with `store_unavailable` when the server cannot be reached, or refuses the
 * database the URL names: a connection is tried once per call, a dropped one a few times.
 * Constructing the store does not connect, and ioredis is imported only when the store first opens
 * a connection of its own (without it: `missing_dependency`). Keys span hash slots: a standalone
 * server (or a replicated one), not Redis Cluster.
 *
 * @example
 * const store = new RedisStore({ url: 'redis://127.0.0.1:6379', prefix: 'statecrew', ttlSeconds: 86_400 });
 * // or, sharing a client of yours (not closed by close): new RedisStore({ client })
 */
export class RedisStore implements Store {
  readonly kind = 'redis';
  readonly #open = new OpenState(NAME);
  readonly #connection: RedisConnection;
  readonly #prefix: string;
  readonly #ttl: number;

  constructor(options: RedisStoreOptions) {
    const { url, client, prefix = 'statecrew', ttlSeconds, connectTimeoutMs = 5000 } = checkOptions(options);
    this.#prefix = prefix;
    this.#ttl = ttlSeconds ?? 0;
    this.#connection = new RedisConnection(
      client === undefined ? { url: url ?? '', connectTimeoutMs } : { client },
    );
  }

  async put(collection: StoreCollection, executionId: string, key: string, value: JsonValue): Promise<void> {
    await this.#write(collection, executionId, key, value, 'put');
  }

  async insert(
    collection: StoreCollection,
    executionId: string,
    key: string,
    value: JsonValue,
  ): Promise<boolean> {
    return (await this.#write(collection, executionId, key, value, 'insert')) === 1;
  }

  async get(
    collection: StoreCollection,
    executionId: string,
    key: string,
  ): Promise<StoredRecord | undefined> {
    this.#open.use(collection, executionId, key);
    const keys = redisRecordKeys(this.#prefix, collection, executionId, key);
    const hash = await this.#run((client) => client.hgetall(keys.record));
    return isEmpty(hash) ? undefined : toRecord(collection, executionId, key, hash);
  }

  async list(collection: StoreCollection, executionId: string): Promise<StoredRecord[]> {
    this.#open.use(collection, executionId);
    const id = escapePart('executionId', executionId);
    const index = indexKey(this.#prefix, collection, id);
    const hashes = await this.#run(async (client) => {
      const members = await client.zrange(index, '0', '-1');
      const records = members.map((m) => ['hgetall', recordKey(this.#prefix, collection, id, m)]);
      return (await pipelined<Record<string, string>>(client, records)).map((hash, i) => ({
        key: unescapePart(members[i] ?? ''),
        hash,
      }));
    });
    // A record that expired before its index is simply gone, as it would be from `get`.
    return hashes
      .filter(({ hash }) => !isEmpty(hash))
      .map(({ key, hash }) => toRecord(collection, executionId, key, hash));
  }

  async executions(collection: StoreCollection): Promise<string[]> {
    this.#open.use(collection);
    const head = indexKey(this.#prefix, collection, '');
    const pattern = `${head.replace(/[*?[\]\\]/g, '\\$&')}*`;
    const ids = new Set<string>();
    await this.#run(async (client) => {
      let cursor = '0';
      do {
        const [next, keys] = await client.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
        for (const key of keys) ids.add(unescapePart(key.slice(head.length)));
        cursor = next;
      } while (cursor !== '0');
    });
    return [...ids].sort();
  }

  async createRun(head: RunHead): Promise<boolean> {
    this.#open.check();
    checkHead(NAME, head);
    const fields = Object.entries(headRow(head)).flatMap(([field, value]) =>
      value === null ? [] : [field, value],
    );
    const keys = redisRunKeys(this.#prefix, head.id);
    const ttl = head.lease?.ttlMs ?? '';
    return this.#onHead(CREATE_RUN_SCRIPT, keys, head.updatedAt, [head.status, ttl, ...fields]);
  }

  async readRun(id: string): Promise<RunHead | undefined> {
    this.#open.use('flow_runs', id);
    const { head } = redisRunKeys(this.#prefix, id);
    const [time, hash] = await this.#run((client) =>
      pipelined<unknown>(client, [['time'], ['hgetall', head]]),
    );
    const row = hash as Record<string, string>;
    return isEmpty(row) ? undefined : headFromRow(withRemaining(row, serverMs(time)));
  }

  async claimRun(id: string, expectedVersion: number, claim: RunClaim): Promise<boolean> {
    this.#open.check();
    checkClaim(NAME, id, expectedVersion, claim);
    const { token, expires_at, owner } = leaseColumns(claim.lease);
    const lease = [token ?? '', expires_at ?? '', owner ?? '', claim.lease?.ttlMs ?? ''];
    const args = [expectedVersion, claim.status, ...lease, claim.replaces ?? ''];
    return this.#onHead(CLAIM_RUN_SCRIPT, redisRunKeys(this.#prefix, id), Date.now(), args);
  }

  async renewLease(id: string, token: string, expiresAt: number, ttlMs?: number): Promise<boolean> {
    this.#open.use('flow_runs', id);
    checkRenewal(NAME, expiresAt, ttlMs);
    // No lease carries an empty token, and the script would read an absent one as empty.
    if (typeof token !== 'string' || token === '') return false;
    const args = [token, expiresAt, ttlMs ?? ''];
    return this.#onHead(RENEW_LEASE_SCRIPT, redisRunKeys(this.#prefix, id), Date.now(), args);
  }

  async commit(id: string, commit: RunCommit): Promise<boolean> {
    this.#open.check();
    checkCommit(NAME, id, commit);
    // Encoded before anything is sent: a value JSON cannot carry fails the commit with nothing written.
    const records = commit.writes.map((write) => ({
      keys: redisRecordKeys(this.#prefix, write.collection, id, write.key),
      text: encodeValue(NAME, write.value),
    }));
    const change = [commit.token, commit.status ?? '', commit.release === true ? '1' : ''];
    return this.#onHead(
      COMMIT_SCRIPT,
      redisRunKeys(this.#prefix, id),
      Date.now(),
      [...change, STORE_FORMAT_VERSION, ...records.flatMap(({ keys, text }) => [text, keys.member])],
      [`${this.#prefix}:seq`, ...records.flatMap(({ keys }) => [keys.record, keys.index])],
    );
  }

  async listRuns(filter: RunFilter = {}): Promise<RunHead[]> {
    this.#open.check();
    const listing = runListing(NAME, filter);
    if (isThreadListing(listing)) return listThreadRuns(this, listing);
    return this.#run((client) => listRedisHeads(client, this.#prefix, listing));
  }

  async prune(options: PruneOptions): Promise<string[]> {
    return (await this.pruneRuns(options)).pruned;
  }

  async pruneRuns(options: PruneOptions): Promise<PruneResult> {
    this.#open.check();
    const { before, statuses, keepHistory } = pruneBounds(NAME, options);
    // A score Redis and Lua both read back as a number (they may not read "Infinity").
    const bound = String(Math.min(Math.max(before, -Number.MAX_VALUE), Number.MAX_VALUE));
    const chosen = [...new Set(statuses)];
    const sets = statusSetKeys(this.#prefix);
    return this.#run(async (client) => {
      const members = await pipelined<string[]>(
        client,
        chosen.map((status) => ['zrangebyscore', sets[status], '-inf', `(${bound}`]),
      );
      const runs = chosen.flatMap((status, i) => (members[i] ?? []).map((member) => ({ status, member })));
      const calls = runs.map(({ status, member }) => this.#pruneCall(status, member, bound, keepHistory));
      const outcomes = await runScripts(client, PRUNE_RUN_SCRIPT, calls);
      // 1: deleted; 2: kept back, its lease live on the server's clock.
      const ids = (outcome: number) =>
        runs
          .filter((_, i) => outcomes[i] === outcome)
          .map(({ member }) => unescapePart(member))
          .sort();
      return { pruned: ids(1), kept: ids(2) };
    });
  }

  async close(): Promise<void> {
    if (this.#open.closed) return;
    this.#open.close();
    await this.#connection.close();
  }

  async #write(
    collection: StoreCollection,
    executionId: string,
    key: string,
    value: JsonValue,
    mode: 'put' | 'insert',
  ): Promise<unknown> {
    this.#open.use(collection, executionId, key);
    const text = encodeValue(NAME, value);
    const keys = redisRecordKeys(this.#prefix, collection, executionId, key);
    const call = {
      keys: [keys.record, keys.index, keys.seq],
      args: [STORE_FORMAT_VERSION, text, Date.now(), keys.member, this.#ttl, mode],
    };
    return this.#run((client) => runScript(client, WRITE_SCRIPT, call));
  }

  /** Runs a script on a run's head (see the head scripts' KEYS and ARGV); resolves whether it wrote. */
  async #onHead(
    script: RedisScript,
    run: RedisRunKeys,
    now: number,
    args: readonly (string | number)[],
    moreKeys: readonly string[] = [],
  ): Promise<boolean> {
    const call = {
      keys: [run.head, ...STORED_RUN_STATUSES.map((status) => run.statuses[status]), ...moreKeys],
      args: [run.member, this.#ttl, now, ...args],
    };
    return (await this.#run((client) => runScript(client, script, call))) === 1;
  }

  #pruneCall(status: StoredRunStatus, member: string, bound: string, keepHistory: boolean) {
    const run = runKeys(this.#prefix, member);
    // Keeping history, only the kept events go; a thread's entries are never a run's to delete.
    const collections = keepHistory ? (['run_events'] as const) : RUN_COLLECTIONS;
    return {
      keys: [run.head, run.statuses[status], ...collections.map((c) => run.indexes[c])],
      args: [member, status, bound, keepHistory ? '1' : '0', ...collections.map((c) => run.records[c])],
    };
  }

  #run<T>(commands: (client: Redis) => Promise<T>): Promise<T> {
    return this.#connection.run(commands);
  }
}

function isEmpty(hash: Record<string, string>): boolean {
  return Object.keys(hash).length === 0;
}

/** A record from its hash: `v` is compared as a number, so `'1'` reads as version 1. */
function toRecord(
  collection: string,
  executionId: string,
  key: string,
  hash: Record<string, string>,
): StoredRecord {
  const { v, value: text, at } = hash;
  const version = v !== undefined && /^-?\d+(\.\d+)?$/.test(v) ? Number(v) : v;
  const value = decodeValue({ collection, executionId, key }, version, text);
  if (at === undefined || !/^\d+$/.test(at)) {
    throw new CorruptSnapshotError(collection, executionId, key, 'no updated time');
  }
  return { key, value, updatedAt: Number(at) };
}
