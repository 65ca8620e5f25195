import { describe, expect, it } from 'vitest';
import { built, loadedBy } from '../helpers.js';

describe('importing MCP support', () => {
  it('importing statecrew loads no MCP module', () => {
    expect(loadedBy()).not.toContain('@modelcontextprotocol/sdk');
  }, 60_000);

  it('statecrew/mcp loads the MCP SDK (the check sees it)', () => {
    expect(loadedBy(built('mcp/index.js'))).toEqual(['@modelcontextprotocol/sdk']);
  }, 60_000);
});
