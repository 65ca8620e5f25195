import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, fixture } from './cli-helpers.js';

/** PostgreSQL and Redis run here unless STATECREW_NO_SERVICES=1 says they do not. */
const noServices = process.env.STATECREW_NO_SERVICES === '1';
if (noServices) console.log('CLI server-store tests skipped: STATECREW_NO_SERVICES=1');

const cwd = mkdtempSync(join(tmpdir(), 'statecrew-cli-servers-'));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

describe.skipIf(noServices)('statecrew on the server stores', { timeout: 60_000 }, () => {
  it.each([
    ['PostgreSQL', 'postgres://postgres@127.0.0.1:5432/test'],
    ['Redis', 'redis://127.0.0.1:6379'],
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
  });
});
