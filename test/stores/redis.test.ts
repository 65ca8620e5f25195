import { Redis } from 'ioredis';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { RedisStore, type RedisStoreOptions, redisRecordKeys } from '../../src/stores/redis.js';
import { storeContract } from '../contracts/store.contract.js';
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
