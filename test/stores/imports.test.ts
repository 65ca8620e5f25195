import { describe, expect, it } from 'vitest';
import { built, loadedBy } from '../helpers.js';

describe('importing statecrew', () => {
  it('loads no store driver or other heavy back-end until a store is used', () => {
    expect(loadedBy()).toEqual([]);
  });

  it('loads the AI SDK only through statecrew/ai-sdk (the check sees ES modules too)', () => {
    expect(loadedBy(built('ai-sdk.js'))).toEqual(['ai']);
  });

  it('loads better-sqlite3 once a SqliteStore opens its file', async () => {
    const { SqliteStore } = await import('../../src/index.js');
    const store = new SqliteStore({ path: ':memory:' });
    await store.put('flow_runs', 'r', 'run', 1);
    await store.close();
    const { createRequire } = await import('node:module');
    const files = Object.keys(createRequire(import.meta.url).cache);
    expect(files.some((f) => f.includes('/node_modules/better-sqlite3/'))).toBe(true);
  });
});
