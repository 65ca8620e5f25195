import { InvalidOptionError } from '../errors.js';
import { MemoryStore } from '../stores/memory.js';
import { SqliteStore } from '../stores/sqlite.js';
import type { Store } from '../stores/store.js';

/**
 * `spec` without its query parameter `name`, and that parameter's value (undefined when absent; the
 * text is left exactly as given then).
 */
export function takeParam(spec: string, name: string): { rest: string; value: string | undefined } {
  let url: URL;
  try {
    url = new URL(spec);
  } catch {
    return { rest: spec, value: undefined };
  }
  const value = url.searchParams.get(name);
  if (value === null) return { rest: spec, value: undefined };
  url.searchParams.delete(name);
  return { rest: url.toString(), value };
}

/** The values `--store` takes, as messages list them. */
export const STORE_CHOICES = 'sqlite, sqlite:<path>, memory, postgres://… or redis://…';

/** What a command that takes `--store` tells a user whose run needs a store: the flag to pass. */
export function storeHint(command: string): string {
  return `pass --store <store> to ${command} (${STORE_CHOICES})`;
}

/**
 * The store a `--store` value names: `sqlite` (the default file) or `sqlite:<path>`, `memory`, a
 * `postgres://` / `postgresql://` connection string (`?schema=<name>` picks the schema, default
 * `statecrew`), or a `redis://` / `rediss://` URL (`?prefix=<prefix>` picks the key prefix, default
 * `statecrew`). The server stores load their drivers only when named.
 */
export async function openStore(spec: string): Promise<Store> {
  if (spec === 'sqlite') return new SqliteStore();
  if (spec.startsWith('sqlite:')) return new SqliteStore({ path: spec.slice('sqlite:'.length) });
  if (spec === 'memory') return new MemoryStore();
  if (/^postgres(ql)?:\/\//.test(spec)) {
    const { PostgresStore } = await import('../stores/postgres.js');
    const { rest, value: schema } = takeParam(spec, 'schema');
    return new PostgresStore({ connectionString: rest, ...(schema === undefined ? {} : { schema }) });
  }
  if (/^rediss?:\/\//.test(spec)) {
    const { RedisStore } = await import('../stores/redis.js');
    const { rest, value: prefix } = takeParam(spec, 'prefix');
    return new RedisStore({ url: rest, ...(prefix === undefined ? {} : { prefix }) });
  }
  throw new InvalidOptionError('statecrew', '--store', STORE_CHOICES, spec);
}

/** The store of a command that reads runs: the `--store` given, else the default SQLite file. */
export function storeFromOption(spec: string | undefined): Promise<Store> {
  return spec === undefined ? Promise.resolve(new SqliteStore()) : openStore(spec);
}
