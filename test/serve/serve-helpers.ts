import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { z } from 'zod';
import { Agent, Crew, createFlow, defineTool, SqliteStore, Task, type ToolCall } from '../../src/index.js';
import { createServer, type ServeOptions, type StatecrewServer } from '../../src/serve/index.js';
import { createScriptedModel } from '../../src/testing.js';

export const TOKEN = 'test-token-1234';

/** A SQLite store in a fresh temp folder; `dispose` closes it and removes the folder. */
export function tempStore() {
  const dir = mkdtempSync(join(tmpdir(), 'statecrew-serve-'));
  const store = new SqliteStore({ path: join(dir, 'runs.db') });
  return {
    store,
    dir,
    async dispose() {
      await store.close().catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A crew of one task with a `{topic}` placeholder; its model echoes the task line. */
export function researchCrew() {
  const llm = createScriptedModel((request) => `notes on ${request.prompt.includes('AI') ? 'AI' : 'other'}`);
  const researcher = new Agent({ role: 'Researcher', goal: 'find facts', backstory: 'careful', llm });
  const task = new Task({
    name: 'research',
    description: 'Research {topic}',
    expectedOutput: 'notes',
    agent: researcher,
  });
  return new Crew({ name: 'research', tasks: [task] });
}

/** A flow that drafts, then asks a human to approve or reject; each route ends in its own step. */
export function reviewFlow() {
  return createFlow({ name: 'review', initialState: { title: '' } })
    .start('draft', ({ state }) => `draft of ${state.title}`)
    .human('approve', 'draft', { routes: ['yes', 'no'], prompt: 'Publish it?' })
    .listen('publish', 'yes', () => 'published')
    .listen('discard', 'no', () => 'discarded');
}

/** A flow with a zod state that waits for an outside event, then ships. */
export function orderFlow() {
  return createFlow({ name: 'order', state: z.object({ item: z.string(), paid: z.number().default(0) }) })
    .start('invoice', ({ state }) => `invoice for ${state.item}`)
    .wait('payment', 'invoice', { event: 'payment.received' })
    .listen('ship', 'payment', ({ payload }) => `shipped after ${JSON.stringify(payload)}`);
}

/** A crew whose clerk calls a `refund` tool that waits for approval, then reports what it said. */
export function refundCrew(done: number[]) {
  const refund = defineTool({
    name: 'refund',
    description: 'Refund an amount',
    input: z.object({ amount: z.number() }),
    needsApproval: true,
    execute: ({ amount }) => {
      done.push(amount);
      return `refunded ${amount}`;
    },
  });
  const llm = createScriptedModel((request) => {
    const results = request.messages.flatMap((m) => (m.role === 'tool' ? [m.content] : []));
    if (results.length > 0) return `done: ${results.join(' | ')}`;
    const toolCalls: ToolCall[] = [{ id: 't0', name: 'refund', args: { amount: 42 } }];
    return { text: '', toolCalls };
  });
  const clerk = new Agent({ role: 'Clerk', goal: 'refund', backstory: 'fair', llm, tools: [refund] });
  return new Crew({
    name: 'refunds',
    tasks: [new Task({ name: 'refund', description: 'refund 42', agent: clerk })],
  });
}

/**
 * A crew whose model waits until `release()`: `called` resolves once the model was called (the run
 * is under way and holds its lease). Aborting the run rejects the pending call.
 */
export function waitingCrew(name = 'slow') {
  let entered: () => void = () => {};
  const called = new Promise<void>((resolve) => {
    entered = resolve;
  });
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const llm = createScriptedModel([
    async () => {
      entered();
      await gate;
      return 'finally';
    },
  ]);
  const agent = new Agent({ role: 'Sloth', goal: 'wait', backstory: 'patient', llm });
  const crew = new Crew({ name, tasks: [new Task({ name: 'wait', description: 'wait a while', agent })] });
  return { crew, called, release: () => release() };
}

/** A server over `store` serving the test definitions, with the token and no runner unless asked. */
export function testServer(store: SqliteStore, options: Partial<ServeOptions> = {}): StatecrewServer {
  return createServer({
    crews: [researchCrew(), refundCrew([]), waitingCrew().crew],
    flows: [reviewFlow(), orderFlow()],
    store,
    token: TOKEN,
    runner: false,
    ...options,
  });
}

/** A store and a test server, made fresh for each test. */
export interface ServerPerTest {
  store: SqliteStore;
  server: StatecrewServer;
}

/**
 * Gives each test of the file a fresh temp store and a {@link testServer} over it (`made` hears of
 * them), closed and removed after the test.
 */
export function serverPerTest(made: (parts: ServerPerTest) => void): void {
  let temp: ReturnType<typeof tempStore> | undefined;
  let server: StatecrewServer | undefined;
  beforeEach(() => {
    temp = tempStore();
    server = testServer(temp.store);
    made({ store: temp.store, server });
  });
  afterEach(async () => {
    await server?.close();
    await temp?.dispose();
  });
}

/** Request options with the token and, given a body, that body as JSON. */
export function authed(init: { method?: string; body?: unknown; headers?: Record<string, string> } = {}) {
  const headers: Record<string, string> = { authorization: `Bearer ${TOKEN}`, ...init.headers };
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  return {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers,
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  };
}

/** A response's JSON body, typed loosely for assertions. */
export async function json(response: Response): Promise<Record<string, unknown> & { error?: ErrorJson }> {
  return (await response.json()) as Record<string, unknown> & { error?: ErrorJson };
}

/** The error body every failed request has. */
export interface ErrorJson {
  code: string;
  message: string;
  details: Record<string, unknown>;
}
