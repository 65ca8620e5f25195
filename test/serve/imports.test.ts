import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const script = fileURLToPath(new URL('../fixtures/loaded-backends.ts', import.meta.url));

/** The heavy back-ends importing `module` (default: statecrew) loads. */
function loadedBy(module?: string): string[] {
  const args = ['--import', 'tsx', script, ...(module === undefined ? [] : [module])];
  const printed = execFileSync(process.execPath, args, { encoding: 'utf8' });
  return (JSON.parse(printed.trim().split('\n').at(-1) as string) as { loaded: string[] }).loaded;
}

describe('importing HTTP serving', () => {
  it('importing statecrew loads neither Hono nor its Node server', () => {
    const loaded = loadedBy();
    expect(loaded).not.toContain('hono');
    expect(loaded).not.toContain('@hono/node-server');
  }, 60_000);

  it('statecrew/serve loads Hono and its Node server, and no queue, database driver or MCP SDK until asked', () => {
    const entry = fileURLToPath(new URL('../../src/serve/index.ts', import.meta.url));
    expect(loadedBy(entry).sort()).toEqual(['@hono/node-server', 'hono']);
  }, 60_000);
});
