import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StoreSpec } from '../fixtures/durable/stores.js';

export const POSTGRES_URL = 'postgres://postgres@127.0.0.1:5432/test';
export const REDIS_URL = 'redis://127.0.0.1:6379';

/** Whether the PostgreSQL and Redis servers are to be used (unless STATECREW_NO_SERVICES=1 says none run). */
export const services = process.env.STATECREW_NO_SERVICES !== '1';

/** A place for a store of its own, and how to remove it afterwards. */
export interface ProvidedStore {
  spec: StoreSpec;
  cleanup(): Promise<void>;
}

let serial = 0;
const unique = (kind: string) => {
  serial += 1;
  return `statecrew_durable_${kind}_${process.pid}_${serial}`;
};

/** A fresh SQLite file in a directory of its own. */
export function sqliteStore(): ProvidedStore {
  const dir = mkdtempSync(join(tmpdir(), 'statecrew-durable-'));
  return {
    spec: { kind: 'sqlite', path: join(dir, 'runs.db') },
    cleanup: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** A fresh PostgreSQL schema, dropped afterwards. */
export function postgresStore(): ProvidedStore {
  const schema = unique('pg');
  return {
    spec: { kind: 'postgres', url: POSTGRES_URL, schema },
    async cleanup() {
      const pg = (await import('pg')).default;
      const client = new pg.Client({ connectionString: POSTGRES_URL });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await client.end();
    },
  };
}

/** A fresh Redis key prefix (or a server of the test's own), its keys deleted afterwards. */
export function redisStore(url = REDIS_URL): ProvidedStore {
  const prefix = unique('redis').replaceAll('_', '-');
  return {
    spec: { kind: 'redis', url, prefix },
    async cleanup() {
      const { Redis } = await import('ioredis');
      const client = new Redis(url, { maxRetriesPerRequest: 1, lazyConnect: true });
      try {
        await client.connect();
        let cursor = '0';
        do {
          const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
          if (keys.length > 0) await client.del(...keys);
          cursor = next;
        } while (cursor !== '0');
      } catch {
        // A server of the test's own that is gone already holds nothing.
      } finally {
        client.disconnect();
      }
    },
  };
}

/** The stores a durability test runs on: SQLite always, the servers unless told none run. */
export function storeKinds(): [string, () => ProvidedStore][] {
  const kinds: [string, () => ProvidedStore][] = [['SQLite', sqliteStore]];
  if (services) kinds.push(['PostgreSQL', postgresStore], ['Redis', () => redisStore()]);
  return kinds;
}
