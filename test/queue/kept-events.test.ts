import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Queue, QueueEvents } from 'bullmq';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  MemoryStore,
  readEvents,
  SqliteStore,
  type StatecrewEvent,
  type Store,
  type StoredEvent,
} from '../../src/index.js';
import { createRunQueue, createWorker, type RunJobResult } from '../../src/queue/index.js';
import { createServer } from '../../src/serve/index.js';
import { connection, noServices, obliterate, startWorkerProcess } from '../executors/queue-helpers.js';
import { briefCrew, stepsFlow } from '../fixtures/queue/kept-events.js';

if (noServices)
  console.log('Queued kept-events tests skipped: STATECREW_NO_SERVICES=1 says no Redis server is running');

const WORKER = fileURLToPath(new URL('../fixtures/queue/events-worker-process.ts', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'statecrew-queued-events-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let children: ChildProcess[] = [];
let queues: string[] = [];
afterEach(async () => {
  for (const child of children) child.kill('SIGKILL');
  await Promise.all(children.map(exited));
  children = [];
  for (const queue of queues) {
    await obliterate(queue);
    await obliterate(`${queue}-runs`);
  }
  queues = [];
});

/** A fresh queue name, its keys removed after the test. */
function freshQueue(): string {
  const queue = `kept-events-${randomUUID()}`;
  queues.push(queue);
  return queue;
}

/** Starts the events worker fixture as `name` with `env` added; killed after the test. */
function startWorker(queue: string, name: string, db: string, env: Record<string, string> = {}) {
  const started = startWorkerProcess(WORKER, { QUEUE: queue, NAME: name, DB: db, ...env });
  started.then(
    (child) => children.push(child),
    () => {},
  );
  return started;
}

/** Resolves once `child` exited. */
function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** An event as the tests compare them: its type, and the task or step it is about. */
function shape(event: StatecrewEvent): string {
  const about = 'name' in event ? ` ${String(event.name)}` : 'nodeId' in event ? ` ${event.nodeId}` : '';
  return `${event.type}${about}`;
}

/** The shapes of the events run `id` of this process keeps, to compare a queued run's with. */
async function keptHere(id: string, run: (store: Store) => Promise<unknown>): Promise<string[]> {
  const store = new MemoryStore();
  await run(store);
  return (await readEvents(store, id)).map((e) => shape(e.event));
}

/** Checks a log is numbered 1, 2, 3, … and every event is of run `id`. */
function expectWhole(events: StoredEvent[], id: string): void {
  expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
  expect(events.every((e) => e.event.runId === id)).toBe(true);
}

/** Polls `read` until `done` accepts what it read. */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    await new Promise<void>((resolve) => setTimeout(resolve, 20));
  }
}

/** A worker of whole runs of `brief` on `queue`, keeping them in `store`. */
function briefWorker(queue: string, store: Store) {
  return createWorker({ connection, queue, definitions: { brief: briefCrew() }, store });
}

/** The server-sent messages of a response, read until it closes. */
async function readStream(response: Response): Promise<{ id: number; event: StatecrewEvent }[]> {
  const text = await response.text();
  return text
    .split('\n\n')
    .map((frame) => ({ id: /^id: (.*)$/m.exec(frame)?.[1], data: /^data: (.*)$/m.exec(frame)?.[1] }))
    .filter((m) => m.id !== undefined && m.data !== undefined)
    .map((m) => ({ id: Number(m.id), event: JSON.parse(m.data as string) as StatecrewEvent }));
}

describe.skipIf(noServices)('runs submitted to the queue keep their events', { timeout: 60_000 }, () => {
  it("submitRun({ events: 'store' }): a worker process keeps a crew's and a flow's events, as a run here does", async () => {
    const queue = freshQueue();
    const db = join(dir, `${queue}.db`);
    await startWorker(queue, 'w1', db);
    const runs = createRunQueue({ connection, queue });
    const store = new SqliteStore({ path: db });
    try {
      const crew = await runs.submitRun('brief', { topic: 'AI' }, { id: 'brief-1', events: 'store' });
      const flow = await runs.submitRun('steps', {}, { id: 'steps-1', events: 'store' });
      expect(await crew.result).toMatchObject({ status: 'completed', worker: 'w1' });
      expect(await flow.result).toMatchObject({ status: 'completed', worker: 'w1' });

      const crewEvents = await readEvents(store, 'brief-1');
      expectWhole(crewEvents, 'brief-1');
      expect(crewEvents[0]?.event).toMatchObject({ type: 'run.started', runId: 'brief-1' });
      expect(crewEvents.at(-1)?.event).toMatchObject({ type: 'run.completed', status: 'completed' });
      const crewHere = await keptHere('here', (store) =>
        briefCrew().kickoff({ executionId: 'here', inputs: { topic: 'AI' }, store, events: 'store' }),
      );
      expect(crewEvents.map((e) => shape(e.event))).toEqual(crewHere);

      const flowEvents = await readEvents(store, 'steps-1');
      expectWhole(flowEvents, 'steps-1');
      expect(flowEvents[0]?.event.type).toBe('run.started');
      expect(flowEvents.at(-1)?.event).toMatchObject({ type: 'run.completed', status: 'completed' });
      const flowHere = await keptHere('here', (store) =>
        stepsFlow().kickoff({ inputs: { id: 'here' }, store, events: 'store' }),
      );
      expect(flowEvents.map((e) => shape(e.event))).toEqual(flowHere);
    } finally {
      await runs.close();
      await store.close();
    }
  });

  it('a run another worker took over after its worker was killed keeps its events, numbered on', async () => {
    const queue = freshQueue();
    const db = join(dir, `${queue}.db`);
    // Short job locks and run leases: the second worker takes the job over soon after the kill.
    const quick = { LOCK_MS: '1000', LEASE_MS: '3000' };
    const doomed = await startWorker(queue, 'doomed', db, { ...quick, HANG_WRITE: '1' });
    const runs = createRunQueue({ connection, queue });
    const store = new SqliteStore({ path: db });
    try {
      const { result } = await runs.submitRun('brief', { topic: 'AI' }, { id: 'taken', events: 'store' });
      // The doomed worker kept the outline (its write never answers), then dies.
      await until(
        () => readEvents(store, 'taken'),
        (events) => events.some((e) => e.event.type === 'node.completed'),
      );
      doomed.kill('SIGKILL');
      await exited(doomed);
      await startWorker(queue, 'heir', db, quick);
      expect(await result).toMatchObject({ status: 'completed', worker: 'heir', output: 'write AI done' });

      const events = await readEvents(store, 'taken');
      expectWhole(events, 'taken');
      const starts = events.flatMap((e, i) => (e.event.type === 'run.started' ? [i] : []));
      expect(starts).toHaveLength(2);
      const [first, resumed] = [events.slice(0, starts[1]), events.slice(starts[1])];
      expect(first.map((e) => shape(e.event))).toContain('node.completed outline');
      // The heir asked the model only for what was left: the write, from the kept outline.
      const resumedShapes = resumed.map((e) => shape(e.event));
      expect(resumedShapes.filter((s) => s.startsWith('model.call'))).toEqual(['model.call write']);
      expect(resumedShapes).toContain('node.completed write');
      expect(resumed.at(-1)?.event).toMatchObject({ type: 'run.completed', status: 'completed' });
    } finally {
      await runs.close();
      await store.close();
    }
  });

  it("POST /runs on a server with a queue: the worker keeps the run's events, and GET /runs/:id/events replays them to its settle", async () => {
    const queue = freshQueue();
    const store = new MemoryStore();
    const server = createServer({
      queue: { connection, queue },
      store,
      crews: [briefCrew()],
      insecureNoAuth: true,
    });
    const worker = briefWorker(queue, store);
    try {
      await worker.ready;
      const posted = await server.request('/runs', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ definition: 'brief', inputs: { topic: 'AI' }, id: 'served' }),
      });
      expect(posted.status).toBe(202);
      // The worker holds the id once it starts the run: from then on the server knows it.
      await until(
        () => store.readRun('served'),
        (head) => head !== undefined,
      );
      const response = await server.request('/runs/served/events');
      expect(response.status).toBe(200);
      const messages = await readStream(response);
      expect(messages.map((m) => m.id)).toEqual(messages.map((_, i) => i + 1));
      expect(messages[0]?.event).toMatchObject({ type: 'run.started', runId: 'served' });
      expect(messages.at(-1)?.event).toMatchObject({ type: 'run.completed', status: 'completed' });
      expect(messages.map((m) => m.event)).toEqual((await readEvents(store, 'served')).map((e) => e.event));
      const here = await keptHere('here', (store) =>
        briefCrew().kickoff({ executionId: 'here', inputs: { topic: 'AI' }, store, events: 'store' }),
      );
      expect(messages.map((m) => shape(m.event))).toEqual(here);
    } finally {
      await server.close();
      await worker.close();
    }
  });

  it('a job that does not ask (submitRun without events, or a job of the old shape) keeps no events', async () => {
    const queue = freshQueue();
    const store = new MemoryStore();
    const worker = briefWorker(queue, store);
    const runs = createRunQueue({ connection, queue });
    const raw = new Queue(`${queue}-runs`, { connection: { host: '127.0.0.1', port: 6379 } });
    try {
      await worker.ready;
      const { result } = await runs.submitRun('brief', { topic: 'AI' }, { id: 'plain' });
      expect(await result).toMatchObject({ status: 'completed' });
      // A job added before runs could keep their events: { name, inputs, id } and nothing else.
      await raw.add('run', { name: 'brief', inputs: { topic: 'AI' }, id: 'old' }, { jobId: 'old' });
      const head = await until(
        () => store.readRun('old'),
        (h) => h?.status === 'completed',
      );
      expect(head?.status).toBe('completed');
      expect(await readEvents(store, 'plain')).toEqual([]);
      expect(await readEvents(store, 'old')).toEqual([]);
    } finally {
      await raw.close();
      await runs.close();
      await worker.close();
    }
  });

  it('refuses another events value with invalid_option naming submitRun, enqueueing nothing; a worker refuses one in a job', async () => {
    const queue = freshQueue();
    const runs = createRunQueue({ connection, queue });
    const raw = new Queue(`${queue}-runs`, { connection: { host: '127.0.0.1', port: 6379 } });
    const heard = new QueueEvents(`${queue}-runs`, { connection: { host: '127.0.0.1', port: 6379 } });
    const store = new MemoryStore();
    const worker = briefWorker(queue, store);
    try {
      const bad = { id: 'bad', events: 'memory' } as unknown as { events: 'store' };
      await expect(runs.submitRun('brief', { topic: 'AI' }, bad)).rejects.toMatchObject({
        code: 'invalid_option',
        message: expect.stringContaining('submitRun: option "events" must be \'store\''),
        details: { where: 'submitRun', option: 'events' },
      });
      const typo = { event: 'store' } as unknown as { events: 'store' };
      await expect(runs.submitRun('brief', { topic: 'AI' }, typo)).rejects.toMatchObject({
        code: 'invalid_option',
        details: { where: 'submitRun', option: 'event' },
      });
      expect(await raw.getJobCounts()).toMatchObject({ waiting: 0, active: 0, completed: 0, failed: 0 });
      expect(await store.readRun('bad')).toBeUndefined();

      // A job another client added with a value no run takes: the run is refused, nothing kept.
      await worker.ready;
      await heard.waitUntilReady();
      const job = await raw.add(
        'run',
        { name: 'brief', inputs: { topic: 'AI' }, id: 'odd', events: 'everything' },
        { jobId: 'odd' },
      );
      const ended = (await job.waitUntilFinished(heard, 30_000)) as RunJobResult;
      expect(ended).toMatchObject({ status: 'failed', failure: { code: 'invalid_option' } });
      expect(await store.readRun('odd')).toBeUndefined();
    } finally {
      await heard.close();
      await raw.close();
      await runs.close();
      await worker.close();
    }
  });
});
