import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { deepRunBody, truncatedPost } from '../serve/slow-request.js';
import { CLI_TIMEOUT, cli, fixture, start } from './cli-helpers.js';

const cwd = mkdtempSync(join(tmpdir(), 'statecrew-cli-serve-limits-'));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

const TOKEN = 'cli-serve-limits-token';

/** `statecrew serve` of the refund flow on a free port, in memory, with the token, then `extra`. */
const serveArgs = (...extra: string[]) => [
  'serve',
  fixture('refund-flow.ts'),
  '--port',
  '0',
  '--store',
  'memory',
  '--token',
  TOKEN,
  ...extra,
];

describe('statecrew serve: what it takes of a request', { timeout: CLI_TIMEOUT }, () => {
  it('answers a body shorter than its Content-Length with 408 past --request-timeout, and inputs 5,000 levels deep with 400', async () => {
    const server = start(serveArgs(), { cwd });
    const limited = start(serveArgs('--request-timeout', '500'), { cwd });
    try {
      await Promise.all([server.whenPrinted('openapi.json'), limited.whenPrinted('openapi.json')]);
      const urlOf = (output: string) =>
        /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1] as string;
      expect(await truncatedPost(urlOf(limited.output()), TOKEN)).toMatch(/^HTTP\/1\.1 408/);
      const response = await fetch(`${urlOf(server.output())}/runs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: deepRunBody('refunds', { amount: 5 }, 5000),
      });
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({
        error: { code: 'invalid_inputs', details: { limit: 'maxInputDepth', maxDepth: 100 } },
      });
    } finally {
      server.child.kill('SIGKILL');
      limited.child.kill('SIGKILL');
    }
  });

  it('refuses a --request-timeout that is not a whole number of ms ≥ 1', async () => {
    const ran = await cli(serveArgs('--request-timeout', 'soon'), { cwd });
    expect(ran.code).toBe(1);
    expect(ran.stderr).toContain('"--request-timeout" must be a whole number of ms ≥ 1, got "soon"');
  });

  it('refuses a --max-active-runs that is not a whole number of runs ≥ 1', async () => {
    const ran = await cli(serveArgs('--max-active-runs', '0'), { cwd });
    expect(ran.code).toBe(1);
    expect(ran.stderr).toContain('"--max-active-runs" must be a whole number of runs ≥ 1, got "0"');
  });
});
