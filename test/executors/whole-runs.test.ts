import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { createFlow, ExecutionDocument, MemoryStore, SqliteStore, type Store } from '../../src/index.js';
import { createRunQueue, createWorker } from '../../src/queue/index.js';
import { briefCrew } from '../fixtures/queue/kept-events.js';
import { connection, noServices, obliterate, startWorkerProcess } from './queue-helpers.js';

if (noServices)
  console.log('Whole-run tests skipped: STATECREW_NO_SERVICES=1 says no Redis server is running');

const WORKER = fileURLToPath(new URL('../fixtures/queue/run-worker-process.ts', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'statecrew-whole-runs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let children: ChildProcess[] = [];
let queues: string[] = [];
afterEach(async () => {
  for (const child of children) child.kill('SIGKILL');
  children = [];
  for (const queue of queues) {
    await obliterate(queue);
    await obliterate(`${queue}-runs`);
  }
  queues = [];
});

function startWorker(queue: string, name: string, db: string): Promise<ChildProcess> {
  const started = startWorkerProcess(WORKER, { QUEUE: queue, NAME: name, DB: db });
  // Killed after the test, whether or not it got ready.
  started.then(
    (child) => children.push(child),
    () => {},
  );
  return started;
}

describe.skipIf(noServices)('whole runs submitted to a fleet', () => {
  it('spreads 50 submitted runs over 2 worker processes, every one finishing and kept in the store', async () => {
    const queue = `runs-${randomUUID()}`;
    queues.push(queue);
    const db = join(dir, `${queue}.db`);
    await Promise.all(['r1', 'r2'].map((name) => startWorker(queue, name, db)));
    const runs = createRunQueue({ connection, queue });
    try {
      const submitted = await Promise.all(
        Array.from({ length: 50 }, (_, i) => runs.submitRun('brief', { topic: `topic ${i}` })),
      );
      const results = await Promise.all(submitted.map((s) => s.result));
      // A run that did not complete shows why (its failure), not only its status.
      const outcomes = results.map((r) => (r.status === 'completed' ? r.status : JSON.stringify(r)));
      expect(outcomes).toEqual(Array(50).fill('completed'));
      expect(results.map((r) => r.id)).toEqual(submitted.map((s) => s.id));
      expect(new Set(results.map((r) => r.worker))).toEqual(new Set(['r1', 'r2']));
      expect(results[7]?.output).toMatch(/^write topic 7 \(r\d\)$/);
      const store = new SqliteStore({ path: db });
      const kept = await ExecutionDocument.fromStore(store, submitted[7]?.id ?? '');
      expect(kept).toMatchObject({ crew: 'brief', status: 'completed' });
      expect((await store.executions('crew_executions')).length).toBe(50);
      await store.close();
    } finally {
      await runs.close();
    }
  }, 60_000);

  it('waits for a run another owner still runs, and ends the job with that run’s end, running nothing twice', async () => {
    const queue = `runs-${randomUUID()}`;
    queues.push(queue);
    const db = join(dir, `${queue}.db`);
    const ran: string[] = [];
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let entered: () => void = () => {};
    const inSlow = new Promise<void>((resolve) => {
      entered = resolve;
    });
    const define = (store: Store) =>
      createFlow({ name: 'slow', initialState: {}, store })
        .start('fast', () => ran.push('fast'))
        .listen('slow', 'fast', async () => {
          ran.push('slow');
          entered();
          await held;
          return 'done';
        });
    // The run is under way in this process (as if a worker BullMQ took for stalled still ran it).
    const owner = new SqliteStore({ path: db });
    const running = define(owner).kickoff({ inputs: { id: 'held-run' } });
    await inSlow;
    // The worker's store counts its reads of the run's head: a second read is its wait.
    const base = new SqliteStore({ path: db });
    let reads = 0;
    let waiting: () => void = () => {};
    const inWait = new Promise<void>((resolve) => {
      waiting = resolve;
    });
    const counted = new Proxy(base, {
      get(target, property) {
        const value: unknown = Reflect.get(target, property, target);
        if (property === 'readRun') {
          return (id: string) => {
            reads += 1;
            if (reads >= 2) waiting();
            return target.readRun(id);
          };
        }
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    // A worker of whole runs only: no agents to name.
    const worker = createWorker({
      connection,
      queue,
      definitions: { slow: define(counted) },
      recover: false,
    });
    const runs = createRunQueue({ connection, queue });
    try {
      await worker.ready;
      const { result } = await runs.submitRun('slow', {}, { id: 'held-run' });
      await inWait;
      release();
      expect((await running).status).toBe('completed');
      expect(await result).toMatchObject({ id: 'held-run', status: 'completed', output: 'done' });
      expect(ran).toEqual(['fast', 'slow']);
    } finally {
      await runs.close();
      await worker.close();
      await owner.close();
      await base.close();
    }
  }, 60_000);

  it('fails a run of a definition the workers do not hold with unknown_definition', async () => {
    const queue = `runs-${randomUUID()}`;
    queues.push(queue);
    const worker = createWorker({ connection, queue, agents: [], definitions: {} });
    await worker.ready;
    const runs = createRunQueue({ connection, queue });
    try {
      const { result } = await runs.submitRun('nowhere', {});
      expect(await result).toMatchObject({ status: 'failed', failure: { code: 'unknown_definition' } });
    } finally {
      await runs.close();
      await worker.close();
    }
  });

  it('cancelRun aborts the run a worker runs: its job ends aborted and the run is kept aborted; false when no worker runs it', async () => {
    const queue = `runs-${randomUUID()}`;
    queues.push(queue);
    const store = new MemoryStore();
    const worker = createWorker({
      connection,
      queue,
      definitions: { brief: briefCrew({ hangWrite: true }) },
      store,
      recover: false,
    });
    await worker.ready;
    const runs = createRunQueue({ connection, queue });
    try {
      expect(await runs.cancelRun('never-submitted')).toBe(false);
      await expect(runs.cancelRun('')).rejects.toMatchObject({ code: 'invalid_option' });
      const { result } = await runs.submitRun('brief', { topic: 'AI' }, { id: 'stopped' });
      // The outline is kept; the write waits on its model, for ever unless the run is aborted.
      await vi.waitFor(async () => expect(await store.list('crew_task_results', 'stopped')).toHaveLength(1), {
        timeout: 30_000,
        interval: 20,
      });
      expect(await runs.cancelRun('stopped', 'enough')).toBe(true);
      expect(await result).toMatchObject({
        status: 'aborted',
        failure: { code: 'aborted', message: expect.stringContaining('enough') },
      });
      expect((await store.readRun('stopped'))?.status).toBe('aborted');
      expect(await runs.cancelRun('stopped')).toBe(false);
    } finally {
      await runs.close();
      await worker.close();
    }
  });
});
