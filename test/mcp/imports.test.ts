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

describe('importing MCP support', () => {
  it('importing statecrew loads no MCP module', () => {
    expect(loadedBy()).not.toContain('@modelcontextprotocol/sdk');
  }, 60_000);

  it('statecrew/mcp loads the MCP SDK (the check sees it)', () => {
    const entry = fileURLToPath(new URL('../../src/mcp/index.ts', import.meta.url));
    expect(loadedBy(entry)).toEqual(['@modelcontextprotocol/sdk']);
  }, 60_000);
});
