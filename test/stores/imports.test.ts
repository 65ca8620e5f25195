import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const script = fileURLToPath(new URL('../fixtures/loaded-backends.ts', import.meta.url));

describe('importing statecrew', () => {
  it('loads no store driver or other heavy back-end until a store is used', () => {
    const printed = execFileSync(process.execPath, ['--import', 'tsx', script], { encoding: 'utf8' });
    const { loaded } = JSON.parse(printed.trim().split('\n').at(-1) as string) as { loaded: string[] };
    expect(loaded).toEqual([]);
  });

  it('loads the AI SDK only through statecrew/ai-sdk (the check sees ES modules too)', () => {
    const adapter = fileURLToPath(new URL('../../src/ai-sdk.ts', import.meta.url));
    const printed = execFileSync(process.execPath, ['--import', 'tsx', script, adapter], {
      encoding: 'utf8',
    });
    const { loaded } = JSON.parse(printed.trim().split('\n').at(-1) as string) as { loaded: string[] };
    expect(loaded).toEqual(['ai']);
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
