import { InvalidOptionError } from '../errors.js';
import { MemoryStore } from '../stores/memory.js';
import { SqliteStore } from '../stores/sqlite.js';
import type { Store } from '../stores/store.js';

/**
 * The store a `--store` value names: `sqlite` (the default file) or `sqlite:<path>`, `memory`, a
 * `postgres://` / `postgresql://` connection string, or a `redis://` / `rediss://` URL. The server
 * stores load their drivers only when named.
 */
export async function openStore(spec: string): Promise<Store> {
  if (spec === 'sqlite') return new SqliteStore();
  if (spec.startsWith('sqlite:')) return new SqliteStore({ path: spec.slice('sqlite:'.length) });
  if (spec === 'memory') return new MemoryStore();
  if (/^postgres(ql)?:\/\//.test(spec)) {
    const { PostgresStore } = await import('../stores/postgres.js');
    return new PostgresStore({ connectionString: spec });
  }
  if (/^rediss?:\/\//.test(spec)) {
    const { RedisStore } = await import('../stores/redis.js');
    return new RedisStore({ url: spec });
  }
  throw new InvalidOptionError(
    'statecrew',
    '--store',
    'sqlite, sqlite:<path>, memory, postgres://… or redis://…',
    spec,
  );
}

/** The store of a command that reads runs: the `--store` given, else the default SQLite file. */
export function storeFromOption(spec: string | undefined): Promise<Store> {
  return spec === undefined ? Promise.resolve(new SqliteStore()) : openStore(spec);
}
