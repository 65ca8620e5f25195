import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventSource } from 'eventsource';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI_TIMEOUT, fixture, start } from './cli-helpers.js';

const cwd = mkdtempSync(join(tmpdir(), 'statecrew-cli-second-copy-events-'));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

const TOKEN = 'second-copy-events-token';

/** Where the fixture's model calls wait: each is held until the test releases it. */
async function modelGate() {
  const held: ServerResponse[] = [];
  let arrived: () => void = () => {};
  const server = createServer((_, response) => {
    held.push(response);
    arrived();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    /** Resolves once `count` model calls have come. */
    called: (count: number) =>
      new Promise<void>((resolve) => {
        arrived = () => held.length >= count && resolve();
        arrived();
      }),
    /** How many model calls came. */
    calls: () => held.length,
    /** Answers the calls held so far. */
    release: () => {
      for (const response of held) if (!response.writableEnded) response.end('done');
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The events an SSE client reads from `url`, with a wait for the first of a type. */
function follow(url: string) {
  const types: string[] = [];
  const waiting: { type: string; resolve: () => void }[] = [];
  const source = new EventSource(url, {
    fetch: (input, init) => {
      const headers = new Headers(init?.headers);
      headers.set('authorization', `Bearer ${TOKEN}`);
      return fetch(input, { ...init, headers });
    },
  });
  source.onmessage = (message) => {
    const { type } = JSON.parse(message.data) as { type: string };
    types.push(type);
    for (const w of waiting.filter((w) => w.type === type)) w.resolve();
  };
  return {
    types,
    read: (type: string) =>
      types.includes(type)
        ? Promise.resolve()
        : new Promise<void>((resolve) => waiting.push({ type, resolve })),
    close: () => source.close(),
  };
}

describe('statecrew serve on a crew of a second copy of statecrew', { timeout: CLI_TIMEOUT }, () => {
  it('streams run.started and the first task’s start while that task is still in flight', async () => {
    const gate = await modelGate();
    const store = `sqlite:${join(cwd, 'runs.db')}`;
    const server = start(
      ['serve', fixture('second-copy-held.ts'), '--port', '0', '--store', store, '--token', TOKEN],
      { cwd, env: { HELD_RELEASE_URL: gate.url } },
    );
    let events: ReturnType<typeof follow> | undefined;
    try {
      await server.whenPrinted('openapi.json');
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(server.output())?.[1] ?? '';
      const posted = await fetch(`${url}/runs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ definition: 'held', inputs: { topic: 'tides' }, id: 'h1' }),
      });
      expect(posted.status).toBe(202);
      events = follow(`${url}/runs/h1/events`);
      await gate.called(1);
      await events.read('node.started');
      // The first task's model call is still held: its task has not finished, and nothing after it ran.
      expect(gate.calls()).toBe(1);
      expect(events.types).toEqual(['run.started', 'node.ready', 'node.started']);

      gate.release();
      await gate.called(2);
      gate.release();
      await events.read('run.completed');
      expect(events.types.filter((type) => type.startsWith('node.') || type.startsWith('run.'))).toEqual([
        'run.started',
        'node.ready',
        'node.started',
        'node.completed',
        'node.ready',
        'node.started',
        'node.completed',
        'run.completed',
      ]);
      server.child.kill('SIGTERM');
      expect((await server.done).code).toBe(0);
    } finally {
      events?.close();
      server.child.kill('SIGKILL');
      await gate.close();
    }
  });
});
