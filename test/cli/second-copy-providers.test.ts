import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI_TIMEOUT, cli, fixture } from './cli-helpers.js';

const cwd = mkdtempSync(join(tmpdir(), 'statecrew-cli-second-copy-providers-'));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

describe('statecrew run on a YAML crew whose crew.ts registers its provider with a second copy', {
  timeout: CLI_TIMEOUT,
}, () => {
  it('runs its agents on that provider, as if the command had registered it', async () => {
    const store = `sqlite:${join(cwd, 'runs.db')}`;
    const ran = await cli(
      ['run', fixture('yaml-second-copy'), '--input', 'topic=tides', '--json', '--store', store],
      { cwd },
    );
    expect(ran.stderr).not.toContain('unknown_provider');
    expect(ran.code).toBe(0);
    const out = JSON.parse(ran.stdout) as { status: string; tasksOutput: { raw: string }[] };
    expect(out).toMatchObject({
      status: 'completed',
      tasksOutput: [{ raw: 'small notes on research tides' }],
    });
  });
});
