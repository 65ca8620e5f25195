import { afterEach, describe, expect, it } from 'vitest';
import { isStatecrewError } from '../../src/index.js';
import { type Listening, listen } from '../../src/serve/index.js';
import { TOKEN, tempStore, testServer } from './serve-helpers.js';

const opened: { listening: Listening; server: ReturnType<typeof testServer>; dispose(): Promise<void> }[] =
  [];

afterEach(async () => {
  for (const { server, listening, dispose } of opened.splice(0)) {
    await server.close();
    await listening.close();
    await dispose();
  }
});

/** A listening test server, closed after the test. */
async function serveWith(options: Parameters<typeof listen>[1]): Promise<Listening> {
  const temp = tempStore();
  const server = testServer(temp.store, { shutdownGraceMs: 0 });
  const listening = await listen(server, options);
  opened.push({ server, listening, dispose: temp.dispose });
  return listening;
}

describe('idle connections', { timeout: 60_000 }, () => {
  it('are kept 65 s by default, and each answer says so', async () => {
    const { url } = await serveWith({ port: 0 });
    const response = await fetch(`${url}/definitions`, { headers: { authorization: `Bearer ${TOKEN}` } });
    await response.text();
    expect(response.headers.get('keep-alive')).toBe('timeout=65');
  });

  it('are kept keepAliveTimeoutMs when given', async () => {
    const { url } = await serveWith({ port: 0, keepAliveTimeoutMs: 2000 });
    const response = await fetch(`${url}/definitions`, { headers: { authorization: `Bearer ${TOKEN}` } });
    await response.text();
    expect(response.headers.get('keep-alive')).toBe('timeout=2');
  });

  it('refuses a keepAliveTimeoutMs that is not a whole number of ms ≥ 1 (invalid_option)', async () => {
    const refused = await serveWith({ port: 0, keepAliveTimeoutMs: 0.5 }).catch((error: unknown) => error);
    expect(isStatecrewError(refused, 'invalid_option')).toBe(true);
    expect((refused as Error).message).toMatch(/keepAliveTimeoutMs.*0\.5/s);
  });
});
