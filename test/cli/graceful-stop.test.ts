import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRunner, SqliteStore } from 'statecrew';
import { afterAll, describe, expect, it } from 'vitest';
import { heldFlow } from '../fixtures/cli/held-flow.js';
import { CLI_TIMEOUT, fixture, start } from './cli-helpers.js';

const cwd = mkdtempSync(join(tmpdir(), 'statecrew-cli-stop-'));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

/** How many times each `<step> <run id>` line was logged. */
function counts(log: string): Map<string, number> {
  const lines = existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : [];
  const found = new Map<string, number>();
  for (const line of lines) found.set(line, (found.get(line) ?? 0) + 1);
  return found;
}

/** Resolves once `holds()` does, looking every 25 ms; fails after a bound no loaded machine reaches. */
async function until(holds: () => boolean, what: string): Promise<void> {
  const giveUp = Date.now() + 60_000;
  while (!holds()) {
    if (Date.now() > giveUp) throw new Error(`never happened: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const IDS = Array.from({ length: 10 }, (_, i) => `held-${i}`);

describe('a graceful stop of statecrew serve', { timeout: CLI_TIMEOUT }, () => {
  it('on SIGTERM lets the steps in flight commit, starts no other, leaves every run running with no lease; a runner resumes each once', async () => {
    const log = join(cwd, 'serve.log');
    const gate = join(cwd, 'serve.gate');
    const db = join(cwd, 'serve.db');
    const server = start(
      ['serve', fixture('held-flow.ts'), '--port', '0', '--store', `sqlite:${db}`, '--insecure-no-auth'],
      { cwd, env: { HELD_LOG: log, HELD_GATE: gate } },
    );
    try {
      await server.whenPrinted('anyone on this machine');
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(server.output())?.[1];
      const headers = { 'content-type': 'application/json' };
      for (const id of IDS) {
        const body = JSON.stringify({ definition: 'held', inputs: {}, id });
        const posted = await fetch(`${url}/runs`, { method: 'POST', headers, body });
        expect(posted.status).toBe(202);
      }
      await until(() => IDS.every((id) => counts(log).get(`s1 ${id}`) === 1), 'every run held in s1');
      server.child.kill('SIGTERM');
      await server.whenPrinted('statecrew serve: stopping');
      // The draining server lets the held steps end and commit, and starts none after them.
      writeFileSync(gate, '');
      const ended = await server.done;
      expect(ended.stderr).toBe('');
      expect(ended.code).toBe(0);
    } finally {
      server.child.kill('SIGKILL');
    }
    expect([...counts(log).keys()].filter((line) => !line.startsWith('s1 '))).toEqual([]);
    const store = new SqliteStore({ path: db });
    try {
      for (const id of IDS) expect(await store.readRun(id)).toMatchObject({ status: 'running', lease: null });
      const runner = createRunner({ store, flows: [heldFlow(log, gate)] });
      const report = await runner.recover();
      await runner.close();
      expect(report.resumed.sort()).toEqual([...IDS].sort());
      expect(report.failed).toEqual([]);
      for (const id of IDS) {
        expect(await store.readRun(id)).toMatchObject({ status: 'completed', lease: null });
        // s1 committed before the stop: it never ran again; s2 and s3 ran once, on resume.
        for (const step of ['s1', 's2', 's3']) expect(counts(log).get(`${step} ${id}`)).toBe(1);
      }
    } finally {
      await store.close();
    }
  });
});
