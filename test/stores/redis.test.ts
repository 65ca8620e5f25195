import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { RedisStore, type RedisStoreOptions, redisRecordKeys, redisRunKeys } from '../../src/stores/redis.js';
import { head, lease } from '../contracts/run-store.contract.js';
import { storeContract } from '../contracts/store.contract.js';
import { freePort, kill, redisServer } from '../durable/servers.js';
import { built } from '../helpers.js';
import { codeOf } from '../store-helpers.js';

const REDIS_URL = 'redis://127.0.0.1:6379';
let admin: Redis | undefined;
let count = 0;
let prefix = '';
/** Every prefix handed out since the last cleanup: a test may open stores on several. */
const prefixes: string[] = [];

/** A client of the test's own, for raw writes and cleanup: never one of the stores under test. */
function adminClient(): Redis {
  admin ??= new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
  return admin;
}

function freshPrefix(): string {
  count += 1;
  prefix = `statecrew-test-${process.pid}-${count}`;
  prefixes.push(prefix);
  return prefix;
}

async function keysOf(pattern: string): Promise<string[]> {
  const found = new Set<string>();
  let cursor = '0';
  do {
    const [next, keys] = await adminClient().scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    for (const key of keys) found.add(key);
    cursor = next;
  } while (cursor !== '0');
  return [...found].sort();
}

async function removeKeys(): Promise<void> {
  for (const used of prefixes.splice(0)) {
    const keys = await keysOf(`${used}:*`);
    if (keys.length > 0) await adminClient().del(...keys);
  }
}

afterAll(async () => {
  await admin?.quit();
});

/**
 * A client of yours whose round trips to the server are counted: each command sent on its own is
 * one, and so is each pipeline (ioredis writes a pipeline's commands at once, through one stream).
 * `trips` holds, per round trip, the names of the commands it carried.
 */
function countingClient(): { client: Redis; trips: string[][] } {
  const client = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
  const trips: string[][] = [];
  const pipelines = new WeakMap<object, string[]>();
  const send = client.sendCommand.bind(client);
  client.sendCommand = (command, stream) => {
    if (stream !== undefined && (stream as { isPipeline?: boolean }).isPipeline === true) {
      const trip = pipelines.get(stream) ?? [];
      if (!pipelines.has(stream)) trips.push(trip);
      pipelines.set(stream, trip);
      trip.push(command.name);
    } else {
      trips.push([command.name]);
    }
    return send(command, stream);
  };
  return { client, trips };
}

const noServices = process.env.STATECREW_NO_SERVICES === '1';
if (noServices)
  console.log('RedisStore tests skipped: STATECREW_NO_SERVICES=1 (they need Redis on 127.0.0.1:6379)');
describe.skipIf(noServices)('RedisStore on the server at 127.0.0.1:6379', () => {
  storeContract('RedisStore', {
    durable: true,
    async open() {
      return new RedisStore({ url: REDIS_URL, prefix: freshPrefix() });
    },
    async reopen() {
      return new RedisStore({ url: REDIS_URL, prefix });
    },
    async writeRaw(_store, collection, executionId, key, version, text) {
      const keys = redisRecordKeys(prefix, collection, executionId, key);
      const client = adminClient();
      const seq = await client.incr(keys.seq);
      await client.hset(keys.record, { v: String(version), value: text, at: Date.now(), seq });
      await client.zadd(keys.index, seq, keys.member);
    },
    async unreachable() {
      return new RedisStore({ url: 'redis://127.0.0.1:1', prefix: 'statecrew-test-nowhere' });
    },
    async cleanup() {
      await removeKeys();
    },
  });

  describe('RedisStore', () => {
    const stores: RedisStore[] = [];
    const open = (options: Partial<RedisStoreOptions> = {}): RedisStore => {
      const store = new RedisStore({
        url: REDIS_URL,
        prefix: freshPrefix(),
        ...options,
      } as RedisStoreOptions);
      stores.push(store);
      return store;
    };

    afterEach(async () => {
      for (const store of stores.splice(0)) await store.close();
      await removeKeys();
    });

    it('lays records out as documented: an escaped hash, an index scored by seq, one counter', async () => {
      const store = open();
      await store.put('crew_task_results', 'run:1', 'task*', { ok: true });
      await store.put('crew_task_results', 'run:1', 'next', 2);
      const record = `${prefix}:crew_task_results:run%3A1:task%2A`;
      expect(redisRecordKeys(prefix, 'crew_task_results', 'run:1', 'task*').record).toBe(record);
      expect(await keysOf(`${prefix}:*`)).toEqual(
        [
          record,
          `${prefix}:crew_task_results:run%3A1:next`,
          `${prefix}:index:crew_task_results:run%3A1`,
          `${prefix}:seq`,
        ].sort(),
      );
      const hash = await adminClient().hgetall(record);
      expect(hash).toMatchObject({ v: '1', value: '{"ok":true}', seq: '1' });
      expect(Number(hash.at)).toBeGreaterThan(0);
      expect(
        await adminClient().zrange(`${prefix}:index:crew_task_results:run%3A1`, '0', '-1', 'WITHSCORES'),
      ).toEqual(['task%2A', '1', 'next', '2']);
    });

    it("never lets ':' or glob characters in ids and keys collide or leak into listing", async () => {
      const store = open();
      await store.put('flow_runs', 'a:b', 'c', 1);
      await store.put('flow_runs', 'a', 'b:c', 2);
      const ids = ['x*', 'xy', 'x?', 'x[y]', 'x\\', "x'!()~"];
      for (const [i, id] of ids.entries()) await store.put('flow_runs', id, '*', i);
      expect((await store.get('flow_runs', 'a:b', 'c'))?.value).toBe(1);
      expect((await store.get('flow_runs', 'a', 'b:c'))?.value).toBe(2);
      expect(await store.executions('flow_runs')).toEqual(['a', 'a:b', ...ids].sort());
      expect((await store.list('flow_runs', 'x*')).map((r) => r.value)).toEqual([0]);
      expect((await store.list('flow_runs', 'a')).map((r) => r.key)).toEqual(['b:c']);
      // A lone surrogate has no UTF-8 form; stored lossily it would merge with another id.
      expect(await codeOf(store.put('flow_runs', 'x\uD800', 'k', 1))).toBe('invalid_option');
    });

    it('keeps apart stores whose prefixes differ only by a glob character', async () => {
      const base = freshPrefix();
      const plain = open({ prefix: `${base}x` });
      const globby = open({ prefix: `${base}?` });
      prefixes.push(`${base}x`, `${base}?`);
      await plain.put('flow_runs', 'mine', 'run', 1);
      await globby.put('flow_runs', 'yours', 'run', 2);
      expect(await plain.executions('flow_runs')).toEqual(['mine']);
      expect(await globby.executions('flow_runs')).toEqual(['yours']);
    });

    it('sets ttlSeconds as the expiry of the record and its index, and none without it', async () => {
      const store = open({ ttlSeconds: 600 });
      await store.put('crew_executions', 'e', 'run', 1);
      expect(await store.insert('crew_executions', 'e', 'other', 2)).toBe(true);
      const keys = redisRecordKeys(prefix, 'crew_executions', 'e', 'other');
      for (const key of [
        keys.record,
        keys.index,
        redisRecordKeys(prefix, 'crew_executions', 'e', 'run').record,
      ]) {
        const ttl = await adminClient().ttl(key);
        expect(ttl).toBeGreaterThan(0);
        expect(ttl).toBeLessThanOrEqual(600);
      }
      const forever = open();
      await forever.put('crew_executions', 'e', 'run', 1);
      expect(await adminClient().ttl(redisRecordKeys(prefix, 'crew_executions', 'e', 'run').record)).toBe(-1);
    });

    it('reads a version as a number and refuses hashes with fields missing', async () => {
      const store = open();
      const write = async (key: string, fields: Record<string, string>) => {
        const keys = redisRecordKeys(prefix, 'flow_runs', 'raw', key);
        await adminClient().hset(keys.record, fields);
        await adminClient().zadd(keys.index, 1, keys.member);
      };
      await write('ok', { v: '1', value: '{"a":1}', at: '5', seq: '1' });
      await write('word', { v: 'one', value: '{}', at: '5' });
      await write('no-v', { value: '{}', at: '5' });
      await write('no-value', { v: '1', at: '5' });
      await write('no-at', { v: '1', value: '{}' });
      expect(await store.get('flow_runs', 'raw', 'ok')).toEqual({ key: 'ok', value: { a: 1 }, updatedAt: 5 });
      expect(await codeOf(store.get('flow_runs', 'raw', 'word'))).toBe('snapshot_version');
      expect(await codeOf(store.get('flow_runs', 'raw', 'no-v'))).toBe('snapshot_version');
      expect(await codeOf(store.get('flow_runs', 'raw', 'no-value'))).toBe('corrupt_snapshot');
      expect(await codeOf(store.get('flow_runs', 'raw', 'no-at'))).toBe('corrupt_snapshot');
    });

    it('leaves a client of yours open on close', async () => {
      const client = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
      try {
        const store = new RedisStore({ client, prefix: freshPrefix() });
        await store.put('crew_executions', 'e', 'run', 1);
        await store.close();
        await store.close();
        expect(await client.ping()).toBe('PONG');
        expect(await codeOf(store.get('crew_executions', 'e', 'run'))).toBe('store_closed');
      } finally {
        await client.quit();
      }
    });

    it('names the unreachable server and why in store_unavailable', async () => {
      const store = new RedisStore({ url: 'redis://127.0.0.1:1', prefix: 'statecrew-test-nowhere' });
      stores.push(store);
      const error = await store.get('flow_runs', 'e', 'run').catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'store_unavailable', retryable: true });
      expect((error as Error).message).toContain('127.0.0.1:1');
      expect((error as Error).message).toContain('ECONNREFUSED');
    });

    it('refuses a database index the server does not have with store_unavailable, writing nowhere', async () => {
      const store = open({ url: `${REDIS_URL}/99` });
      const error = await store.createRun(head('r1')).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'store_unavailable' });
      expect((error as Error).message).toContain('127.0.0.1:6379/99');
      expect((error as Error).message).toContain('DB index is out of range');
      // A later call connects again and is refused again: never database 0 instead.
      expect(await codeOf(store.put('flow_runs', 'r1', 'run', 1))).toBe('store_unavailable');
      expect(await keysOf(`${prefix}:*`)).toEqual([]);
    });

    it('lays heads out as documented: an escaped hash, one set per status scored by updated_at', async () => {
      const store = open();
      const created = head('run:1', 'a');
      await store.createRun(created);
      const keys = redisRunKeys(prefix, 'run:1');
      expect(keys.head).toBe(`${prefix}:run:run%3A1`);
      expect(keys.statuses.running).toBe(`${prefix}:runs:running`);
      expect(await adminClient().hgetall(keys.head)).toMatchObject({
        id: 'run:1',
        status: 'running',
        version: '1',
        token: 'a',
        data: JSON.stringify(created.data),
      });
      expect(await adminClient().zrange(keys.statuses.running, '0', '-1', 'WITHSCORES')).toEqual([
        'run%3A1',
        String(created.updatedAt),
      ]);
      await store.commit('run:1', { token: 'a', writes: [], status: 'paused', release: true });
      expect(await adminClient().exists(keys.statuses.running)).toBe(0);
      expect(await adminClient().zrange(keys.statuses.paused, '0', '-1')).toEqual(['run%3A1']);
      expect(await adminClient().hmget(keys.head, 'token', 'expires_at', 'owner')).toEqual([
        null,
        null,
        null,
      ]);
    });

    it('commits three records and a status in one round trip, and lists N heads in two', async () => {
      const { client, trips } = countingClient();
      try {
        await client.ping();
        const store = new RedisStore({ client, prefix: freshPrefix() });
        for (let i = 0; i < 25; i += 1) await store.createRun(head(`r${i}`, 'a'));
        const writes = ['one', 'two', 'three'].map((key) => ({
          collection: 'crew_task_results' as const,
          key,
          value: { key },
        }));
        trips.length = 0;
        expect(await store.commit('r0', { token: 'a', writes, status: 'completed', release: true })).toBe(
          true,
        );
        // The first use of a script on a client sends it whole, later ones by SHA: one trip either way.
        expect(await store.commit('r1', { token: 'a', writes, status: 'failed' })).toBe(true);
        expect(trips).toEqual([['eval'], ['evalsha']]);
        expect((await store.list('crew_task_results', 'r0')).map((r) => r.key)).toEqual([
          'one',
          'two',
          'three',
        ]);
        expect(await store.readRun('r0')).toMatchObject({ status: 'completed', version: 2, lease: null });

        trips.length = 0;
        const listed = await store.listRuns();
        expect(listed).toHaveLength(25);
        expect(trips).toHaveLength(2);
        // The heads, and the server's time their leases are judged by.
        expect(trips[1]).toEqual(['time', ...Array.from({ length: 25 }, () => 'hgetall')]);
        await store.close();
      } finally {
        await client.quit();
      }
    });

    it('gives heads and status sets the TTL, refreshed by every write of the run', async () => {
      const store = open({ ttlSeconds: 600 });
      const ttlOf = (key: string) => adminClient().ttl(key);
      await store.createRun(head('r1', 'a'));
      const keys = redisRunKeys(prefix, 'r1');
      for (const key of [keys.head, keys.statuses.running]) {
        expect(await ttlOf(key)).toBeGreaterThan(500);
        expect(await ttlOf(key)).toBeLessThanOrEqual(600);
      }
      // Shortened by hand, then written again by the owner: the TTL is back to the store's.
      await adminClient().expire(keys.head, 5);
      expect(await store.renewLease('r1', 'a', Date.now() + 60_000)).toBe(true);
      expect(await ttlOf(keys.head)).toBeGreaterThan(500);
      await adminClient().expire(keys.head, 5);
      const writes = [{ collection: 'flow_runs' as const, key: 'run', value: 1 }];
      expect(await store.commit('r1', { token: 'a', writes, status: 'completed', release: true })).toBe(true);
      const record = redisRecordKeys(prefix, 'flow_runs', 'r1', 'run');
      for (const key of [keys.head, keys.statuses.completed, record.record, record.index]) {
        expect(await ttlOf(key)).toBeGreaterThan(500);
      }
      const forever = open();
      await forever.createRun(head('r1', 'a'));
      expect(await ttlOf(redisRunKeys(prefix, 'r1').head)).toBe(-1);
    });

    it('skips a status entry whose head expired, and prune drops it', async () => {
      const store = open();
      await store.createRun(head('gone', null, { status: 'completed', updatedAt: 1 }));
      await store.createRun(head('kept', null, { status: 'completed', updatedAt: 1 }));
      const gone = redisRunKeys(prefix, 'gone');
      await adminClient().del(gone.head); // as its TTL would
      expect((await store.listRuns()).map((h) => h.id)).toEqual(['kept']);
      expect(await store.prune({ olderThan: 2 })).toEqual(['kept']);
      expect(await adminClient().exists(gone.statuses.completed)).toBe(0);
    });

    it('sends a script whole again when the server forgot it (restarted, or SCRIPT FLUSH)', async () => {
      // A server of the test's own: flushing the shared one's scripts would touch other tests.
      const dir = mkdtempSync(join(tmpdir(), 'statecrew-redis-'));
      const port = await freePort();
      const server = await redisServer(port, dir);
      const url = `redis://127.0.0.1:${port}`;
      const other = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
      const store = new RedisStore({ url, prefix: 'flushed' });
      try {
        // A lease that expired: a prune deletes the run (one whose lease is live it keeps).
        await store.createRun(head('r1', null, { lease: lease('a', Date.now() - 1000) }));
        const write = (key: string) => [{ collection: 'flow_runs' as const, key, value: key }];
        expect(await store.commit('r1', { token: 'a', writes: write('before') })).toBe(true);
        await other.script('FLUSH');
        expect(await store.commit('r1', { token: 'a', writes: write('after') })).toBe(true);
        await other.script('FLUSH');
        expect(await store.prune({ olderThan: Date.now() + 60_000, statuses: ['running'] })).toEqual(['r1']);
        expect(await store.list('flow_runs', 'r1')).toEqual([]);
      } finally {
        await store.close();
        await other.quit();
        await kill(server);
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('imports without ioredis, and rejects the first call with missing_dependency', () => {
      const store = built('stores/redis.js');
      // A resolve hook sends 'ioredis' to a package that is not installed.
      const hook = `export async function resolve(specifier, context, next) {
        return next(specifier === 'ioredis' ? 'statecrew-absent-package' : specifier, context);
      }`;
      const script = `
        import { register } from 'node:module';
        register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hook)}`)});
        const { RedisStore } = await import(${JSON.stringify(store)});
        const store = new RedisStore({ url: ${JSON.stringify(REDIS_URL)}, prefix: 'statecrew-test-absent' });
        const error = await store.put('flow_runs', 'e', 'run', 1).catch((e) => e);
        console.log(JSON.stringify({ code: error.code, details: error.details }));`;
      const printed = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
        encoding: 'utf8',
      });
      expect(JSON.parse(printed.trim().split('\n').at(-1) as string)).toEqual({
        code: 'missing_dependency',
        details: { what: 'RedisStore', package: 'ioredis' },
      });
    });

    it('refuses bad options, naming the option, without connecting', () => {
      const client = new Redis(REDIS_URL, { lazyConnect: true });
      const cases: [unknown, string][] = [
        [{}, 'url'],
        [{ url: REDIS_URL, client }, 'url'],
        [{ url: 'http://127.0.0.1:6379' }, 'url'],
        [{ client: {} }, 'client'],
        [{ client: new Redis(REDIS_URL, { lazyConnect: true, keyPrefix: 'p:' }) }, 'client'],
        [{ url: REDIS_URL, prefix: '' }, 'prefix'],
        [{ url: REDIS_URL, prefix: 'a:b' }, 'prefix'],
        [{ url: REDIS_URL, ttlSeconds: 0 }, 'ttlSeconds'],
        [{ url: REDIS_URL, ttlSeconds: 1.5 }, 'ttlSeconds'],
        [{ url: REDIS_URL, connectTimeoutMs: -1 }, 'connectTimeoutMs'],
      ];
      for (const [options, option] of cases) {
        expect(() => new RedisStore(options as RedisStoreOptions)).toThrow(
          expect.objectContaining({ code: 'invalid_option', details: expect.objectContaining({ option }) }),
        );
      }
      expect(client.status).toBe('wait');
      expect(new RedisStore({ url: REDIS_URL }).kind).toBe('redis');
    });
  });
});
