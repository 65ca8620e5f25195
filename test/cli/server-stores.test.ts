import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { takeParam } from '../../src/cli/store-option.js';
import { CLI_TIMEOUT, cli, fixture } from './cli-helpers.js';

/** PostgreSQL and Redis run here unless STATECREW_NO_SERVICES=1 says they do not. */
const noServices = process.env.STATECREW_NO_SERVICES === '1';
if (noServices) console.log('CLI server-store tests skipped: STATECREW_NO_SERVICES=1');

const cwd = mkdtempSync(join(tmpdir(), 'statecrew-cli-servers-'));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

/** This file's own schema and key prefix, named in the --store URLs, and removed afterwards. */
const schema = `statecrew_cli_${process.pid}`;
const prefix = `statecrew-cli-${process.pid}`;

async function dropNamespaces(): Promise<void> {
  const client = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/test' });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await client.end();
  const redis = new Redis('redis://127.0.0.1:6379');
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
    cursor = next;
    if (keys.length > 0) await redis.del(...keys);
  } while (cursor !== '0');
  await redis.quit();
}

describe('--store URLs', () => {
  it('take the schema or key prefix out of the URL, leaving a URL without one as it was', () => {
    expect(takeParam('postgres://u@h:5432/db?schema=app_1', 'schema')).toEqual({
      rest: 'postgres://u@h:5432/db',
      value: 'app_1',
    });
    expect(takeParam('redis://h:6379/2?prefix=app&x=1', 'prefix')).toEqual({
      rest: 'redis://h:6379/2?x=1',
      value: 'app',
    });
    expect(takeParam('redis://h:6379', 'prefix')).toEqual({ rest: 'redis://h:6379', value: undefined });
  });
});

describe.skipIf(noServices)('statecrew on the server stores', { timeout: CLI_TIMEOUT }, () => {
  afterAll(dropNamespaces);

  it.each([
    ['PostgreSQL', `postgres://postgres@127.0.0.1:5432/test?schema=${schema}`],
    ['Redis', `redis://127.0.0.1:6379?prefix=${prefix}`],
  ])('keeps a run in %s: run, show and resume a paused flow through --store', async (_name, store) => {
    const paused = await cli(['run', fixture('refund-flow.ts'), '--input', 'amount=700', '--store', store], {
      cwd,
    });
    expect(paused.stderr).toBe('');
    const id = /run ([0-9a-f-]{36})/.exec(paused.stdout)?.[1] ?? '';
    const shown = await cli(['show', id, '--store', store], { cwd });
    expect(shown.stdout).toContain(`flow refunds run ${id}: paused`);
    const resumed = await cli(['resume', id, '--route', 'rejected', '--json', '--store', store], { cwd });
    expect(resumed.code).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ status: 'completed', output: 'declined' });
    // The run went to the namespace the URL named.
    if (store.startsWith('postgres')) {
      const client = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/test' });
      await client.connect();
      const { rows } = await client.query(`SELECT status FROM "${schema}".runs WHERE id = $1`, [id]);
      await client.end();
      expect(rows).toEqual([{ status: 'completed' }]);
    } else {
      const redis = new Redis('redis://127.0.0.1:6379');
      const status = await redis.hget(`${prefix}:run:${id}`, 'status');
      await redis.quit();
      expect(status).toBe('completed');
    }
  });
});
