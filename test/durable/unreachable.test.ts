import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { StoreSpec } from '../fixtures/durable/stores.js';
import { countRuns } from './processes.js';
import { POSTGRES_URL, services } from './store-specs.js';

const root = mkdtempSync(join(tmpdir(), 'statecrew-unreachable-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const script = fileURLToPath(new URL('../fixtures/durable/kickoff-once.ts', import.meta.url));
const hide = fileURLToPath(new URL('../fixtures/durable/hide-packages.mjs', import.meta.url));

/** Kicks the chain crew off in a fresh process on `spec` (with `hidden` packages missing); what it printed. */
function kickoff(
  spec: StoreSpec,
  hidden: string[] = [],
): { ok: boolean; code?: string; details?: Record<string, unknown>; calls: number } {
  const log = join(root, `log-${Math.random().toString(36).slice(2)}`);
  const printed = execFileSync(
    process.execPath,
    ['--import', 'tsx', '--import', hide, script, JSON.stringify(spec), log],
    {
      encoding: 'utf8',
      env: { ...process.env, HIDE_PACKAGES: hidden.join(',') },
    },
  );
  const result = JSON.parse(printed.trim().split('\n').at(-1) as string);
  expect(result.calls).toBe(countRuns(log).size);
  return result;
}

describe('a kickoff whose store cannot be used makes no model call', { timeout: 60_000 }, () => {
  it('refuses a Redis server that does not answer (store_unavailable)', () => {
    const result = kickoff({ kind: 'redis', url: 'redis://127.0.0.1:1', prefix: 'nowhere' });
    expect(result).toMatchObject({ ok: false, code: 'store_unavailable', calls: 0 });
  });

  it('refuses a PostgreSQL server that does not answer (store_unavailable)', () => {
    const result = kickoff({
      kind: 'postgres',
      url: 'postgres://postgres@127.0.0.1:1/test',
      schema: 'nowhere',
    });
    expect(result).toMatchObject({ ok: false, code: 'store_unavailable', calls: 0 });
  });

  it.skipIf(!services)('refuses a PostgreSQL database that does not exist (store_unavailable, 3D000)', () => {
    const url = POSTGRES_URL.replace(/\/test$/, `/statecrew_missing_${process.pid}`);
    const result = kickoff({ kind: 'postgres', url, schema: 'nowhere' });
    expect(result).toMatchObject({
      ok: false,
      code: 'store_unavailable',
      details: { cause: '3D000' },
      calls: 0,
    });
  });

  it('names the driver to install when it is missing (missing_dependency)', () => {
    const cases: [StoreSpec, string][] = [
      [{ kind: 'postgres', url: POSTGRES_URL, schema: 'nowhere' }, 'pg'],
      [{ kind: 'redis', url: 'redis://127.0.0.1:6379', prefix: 'nowhere' }, 'ioredis'],
      [{ kind: 'sqlite', path: join(root, 'never.db') }, 'better-sqlite3'],
    ];
    for (const [spec, pkg] of cases) {
      const result = kickoff(spec, [pkg]);
      expect(result).toMatchObject({
        ok: false,
        code: 'missing_dependency',
        details: { package: pkg },
        calls: 0,
      });
    }
  });
});
