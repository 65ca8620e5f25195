import { HttpAgent } from '@ag-ui/client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readEvents, type SqliteStore, type StatecrewEvent } from '../../src/index.js';
import { type Listening, listen } from '../../src/serve/index.js';
import { liveRuns } from '../../src/serve/server.js';
import { researchCrew, TOKEN, tempStore, testServer, waitingCrew } from './serve-helpers.js';

let temp: ReturnType<typeof tempStore>;
let store: SqliteStore;
let listening: Listening;
let server: ReturnType<typeof testServer>;
let waiting: ReturnType<typeof waitingCrew>;

beforeEach(async () => {
  temp = tempStore();
  store = temp.store;
  waiting = waitingCrew('gate');
  server = testServer(store, { crews: [researchCrew(), waiting.crew] });
  listening = await listen(server, { port: 0 });
});

afterEach(async () => {
  waiting.release();
  await server.close();
  await listening.close();
  await temp.dispose();
});

const auth = { authorization: `Bearer ${TOKEN}` };

/** POSTs a request; a 202 waits until the run it started settles or pauses when `settle`. */
async function post(path: string, body: unknown, settle = true) {
  const response = await fetch(`${listening.url}${path}`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const answer = (await response.json()) as { id: string };
  if (settle && response.status === 202) await liveRuns(server).get(answer.id)?.done;
  return answer;
}

interface Message {
  id: number;
  event: StatecrewEvent;
}

/** Reads an SSE response's messages until it closes; `onMessage` sees each as it comes. */
async function readStream(
  response: Response,
  onMessage: (m: Message) => void = () => {},
): Promise<Message[]> {
  const messages: Message[] = [];
  const decoder = new TextDecoder();
  let text = '';
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    text += decoder.decode(chunk, { stream: true });
    let end = text.indexOf('\n\n');
    while (end !== -1) {
      const frame = text.slice(0, end);
      text = text.slice(end + 2);
      const id = /^id: (.*)$/m.exec(frame)?.[1];
      const data = /^data: (.*)$/m.exec(frame)?.[1];
      if (id !== undefined && data !== undefined) {
        const message = { id: Number(id), event: JSON.parse(data) as StatecrewEvent };
        messages.push(message);
        onMessage(message);
      }
      end = text.indexOf('\n\n');
    }
  }
  return messages;
}

const events = (path: string, headers: Record<string, string> = {}) =>
  fetch(`${listening.url}${path}`, { headers: { ...auth, ...headers } });

describe('GET /runs/:id/events', { timeout: 30_000 }, () => {
  it('streams a paused run from its start and closes; after Last-Event-ID, only what came after, numbered on', async () => {
    await post('/runs', { definition: 'review', inputs: { title: 'Launch' }, id: 'r1' });
    const response = await events('/runs/r1/events');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const first = await readStream(response);
    expect(first.map((m) => m.id)).toEqual(first.map((_, i) => i + 1));
    expect(first.at(-1)?.event).toMatchObject({ type: 'run.completed', status: 'paused' });
    await post('/runs/r1/resume', { route: 'yes' });
    const rest = await readStream(await events('/runs/r1/events', { 'last-event-id': String(first.length) }));
    expect(rest[0]?.id).toBe(first.length + 1);
    expect(rest.at(-1)?.event).toMatchObject({ type: 'run.completed', status: 'completed' });
    const stored = await readEvents(store, 'r1');
    expect([...first, ...rest].map((m) => ({ seq: m.id, event: m.event }))).toEqual(stored);
  });

  it('streams a live run as it runs, and closes once it settles: nothing missing, nothing twice, in order', async () => {
    await post('/runs', { definition: 'gate', inputs: {}, id: 'g1' }, false);
    await waiting.called;
    let sawStart: () => void = () => {};
    const started = new Promise<void>((resolve) => (sawStart = resolve));
    const reading = readStream(await events('/runs/g1/events'), (m) => {
      if (m.event.type === 'node.started') sawStart();
    });
    await started;
    waiting.release();
    const messages = await reading;
    expect(messages.at(-1)?.event).toMatchObject({ type: 'run.completed', status: 'completed' });
    expect(messages.map((m) => ({ seq: m.id, event: m.event }))).toEqual(await readEvents(store, 'g1'));
  });

  it('refuses a bad Last-Event-ID (400), an unknown run (404), no token (401)', async () => {
    await post('/runs', { definition: 'review', inputs: { title: 'x' }, id: 'r2' });
    const bad = await events('/runs/r2/events', { 'last-event-id': 'soon' });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({
      error: { code: 'invalid_option', details: { option: 'Last-Event-ID' } },
    });
    const unknown = await events('/runs/nope/events');
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ error: { code: 'run_not_found' } });
    expect((await fetch(`${listening.url}/runs/r2/events`)).status).toBe(401);
  });
});

describe('/runs/:id/agui', { timeout: 30_000 }, () => {
  it("is read by an AG-UI client: the run's steps and its text, a run that ends", async () => {
    await post('/runs', { definition: 'research', inputs: { topic: 'AI' }, id: 'a1' });
    const agent = new HttpAgent({ url: `${listening.url}/runs/a1/agui`, headers: auth });
    const seen: string[] = [];
    const { newMessages } = await agent.runAgent({}, { onEvent: ({ event }) => void seen.push(event.type) });
    expect(seen[0]).toBe('RUN_STARTED');
    expect(seen).toContain('STEP_STARTED');
    expect(seen).toContain('STEP_FINISHED');
    expect(seen.at(-1)).toBe('RUN_FINISHED');
    expect(newMessages.map((m) => ('content' in m ? m.content : undefined))).toContain('notes on AI');
  });

  it('ends a paused run with an interrupt naming what waits', async () => {
    await post('/runs', { definition: 'review', inputs: { title: 'Launch' }, id: 'a2' });
    const response = await events('/runs/a2/agui');
    const text = await response.text();
    const frames = text
      .split('\n\n')
      .flatMap((frame) => /^data: (.*)$/m.exec(frame)?.[1] ?? [])
      .map(
        (data) =>
          JSON.parse(data) as { type: string; outcome?: { type: string; interrupts?: { id: string }[] } },
      );
    const finished = frames.at(-1);
    expect(finished).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'interrupt' } });
    expect(finished?.outcome?.interrupts?.map((i) => i.id)).toEqual(['a2:approve']);
  });
});
