import { describe, expect, it } from 'vitest';
import { built, loadedBy } from '../helpers.js';

describe('importing HTTP serving', () => {
  it('importing statecrew loads neither Hono nor its Node server', () => {
    const loaded = loadedBy();
    expect(loaded).not.toContain('hono');
    expect(loaded).not.toContain('@hono/node-server');
  }, 60_000);

  it('statecrew/serve loads Hono and its Node server, and no queue, database driver or MCP SDK until asked', () => {
    expect(loadedBy(built('serve/index.js')).sort()).toEqual(['@hono/node-server', 'hono']);
  }, 60_000);
});
