import { describe, expect, it } from 'vitest';
import { createRunner, MemoryStore, type RunHead, type StatecrewEvent } from '../../src/index.js';
import { encodeRunValue } from '../../src/runtime/durable/codec.js';
import { createManualClock } from '../../src/testing.js';
import { chainCrew, chainFlow } from '../fixtures/durable/definitions.js';
import { Child, countRuns, type Reply, runLogs } from './processes.js';
import { storeKinds } from './store-specs.js';

const freshLog = runLogs('statecrew-runner-');

/** The head of a run whose process died before it wrote anything but its claim (a dead owner). */
function orphan(id: string, kind: 'flow' | 'crew', name: string, inputs: object): RunHead {
  const lease = { owner: 'gone:1', token: 't', expiresAt: 0, host: 'elsewhere', pid: 1, thread: 0 };
  return {
    id,
    kind,
    name,
    status: 'running',
    version: 1,
    lease,
    data: { inputs: encodeRunValue(inputs) },
    createdAt: 0,
    updatedAt: 0,
  };
}

describe('createRunner', () => {
  it('resumes stuck runs every pollMs on its clock, from their stored inputs, telling run.recovered', async () => {
    const store = new MemoryStore();
    const log = freshLog();
    await store.createRun(orphan('f1', 'flow', 'chain', { topic: 'AI', id: 'f1' }));
    await store.createRun(orphan('c1', 'crew', 'chain', { topic: 'ML' }));
    const clock = createManualClock();
    const runner = createRunner({
      store,
      flows: [chainFlow(store, log)],
      crews: [chainCrew(store, log)],
      clock,
      pollMs: 1000,
    });
    const events: StatecrewEvent[] = [];
    const settled = new Promise<void>((resolve) => {
      runner.events$.subscribe((event) => {
        events.push(event);
        if (events.filter((e) => e.type === 'run.completed').length === 2) resolve();
      });
    });
    await clock.whenTimer();
    expect(await store.readRun('f1')).toMatchObject({ status: 'running', version: 1 }); // not before the poll
    clock.advance(1000);
    await settled;
    expect(events.filter((e) => e.type === 'run.recovered')).toEqual([
      expect.objectContaining({ runId: 'f1', kind: 'flow', name: 'chain', previousOwner: 'gone:1' }),
      expect.objectContaining({ runId: 'c1', kind: 'crew', name: 'chain', previousOwner: 'gone:1' }),
    ]);
    expect(await store.readRun('f1')).toMatchObject({ status: 'completed', lease: null });
    expect(await store.readRun('c1')).toMatchObject({ status: 'completed', lease: null });
    expect(countRuns(log).get('s1 AI')).toBe(1);
    expect(countRuns(log).get('t1 on ML')).toBe(1);
    await runner.close();
  });

  it('leaves a run it holds no definition of alone, saying so once; recover() reports each pass', async () => {
    const store = new MemoryStore();
    await store.createRun(orphan('x1', 'flow', 'elsewhere', {}));
    const runner = createRunner({ store, flows: [chainFlow(store, freshLog())] });
    const events: StatecrewEvent[] = [];
    runner.events$.subscribe((event) => events.push(event));
    const leftAlone = { resumed: [], started: [], timedOut: [], skipped: ['x1'], failed: [] };
    expect(await runner.recover()).toEqual(leftAlone);
    expect(await runner.recover()).toEqual(leftAlone);
    expect(events).toEqual([
      expect.objectContaining({ type: 'run.skipped', runId: 'x1', kind: 'flow', name: 'elsewhere' }),
    ]);
    expect(await store.readRun('x1')).toMatchObject({ status: 'running', version: 1 });
    await runner.close();
  });

  it('refuses two definitions of one name and options that are not numbers (invalid_option)', () => {
    const store = new MemoryStore();
    const log = freshLog();
    expect(() => createRunner({ store, flows: [chainFlow(store, log), chainFlow(store, log)] })).toThrow(
      expect.objectContaining({ code: 'invalid_option' }),
    );
    expect(() => createRunner({ store, pollMs: 0 })).toThrow(/pollMs/);
    expect(() => createRunner({} as never)).toThrow(/store/);
  });
});

for (const [kind, provide] of storeKinds()) {
  describe(`runners on ${kind}`, () => {
    it('recover a crashed flow and a crashed crew with nobody calling resume: two runners, each run once', async () => {
      const provided = provide();
      const log = freshLog();
      try {
        for (const [what, id, hangAt] of [
          ['flow', 'crashed-flow', 's3'],
          ['crew', 'crashed-crew', 't3'],
        ] as const) {
          const crasher = await Child.start(provided.spec, log);
          crasher.send({ op: 'kickoff', what, id, hangAt, inputs: { topic: 'AI' } }).catch(() => {});
          await crasher.when((line) => line.event === 'running' && line.name === hangAt);
          await crasher.kill();
        }
        const runners = await Promise.all([Child.start(provided.spec, log), Child.start(provided.spec, log)]);
        try {
          const replies = await Promise.all(runners.map((r) => r.send({ op: 'recover' })));
          const reports = replies.map((r: Reply) => r.report as { resumed: string[]; failed: unknown[] });
          expect(reports.flatMap((r) => r.failed)).toEqual([]);
          expect(reports.flatMap((r) => r.resumed).sort()).toEqual(['crashed-crew', 'crashed-flow']);
        } finally {
          await Promise.all(runners.map((r) => r.close()));
        }
        const runs = countRuns(log);
        expect(['s1', 's2', 's3', 's4', 's5', 's6'].map((s) => runs.get(`${s} AI`))).toEqual([
          1, 1, 2, 1, 1, 1,
        ]);
        expect(['t1', 't2', 't3', 't4', 't5', 't6'].map((t) => runs.get(`${t} on AI`))).toEqual([
          1, 1, 2, 1, 1, 1,
        ]);
      } finally {
        await provided.cleanup();
      }
    }, 90_000);

    it('start a scheduled tick once from two runner processes on one store', async () => {
      const provided = provide();
      const log = freshLog();
      const monday = Date.UTC(2026, 0, 5, 8, 0, 0);
      try {
        const runners = await Promise.all([Child.start(provided.spec, log), Child.start(provided.spec, log)]);
        try {
          const pass = async (at: number) => {
            const replies = await Promise.all(runners.map((r) => r.send({ op: 'schedule', at })));
            const reports = replies.map((r: Reply) => r.report as { started: string[]; failed: unknown[] });
            expect(reports.flatMap((r) => r.failed)).toEqual([]);
            return reports.flatMap((r) => r.started);
          };
          expect(await pass(monday)).toEqual([]); // first seen at 08:00: no catch-up
          expect(await pass(monday + 3_600_000 + 1_000)).toEqual(['chain@2026-01-05T09:00:00.000Z']);
          expect(await pass(monday + 3_600_000 + 2_000)).toEqual([]);
        } finally {
          await Promise.all(runners.map((r) => r.close()));
        }
        const runs = countRuns(log);
        expect(['s1', 's6'].map((s) => runs.get(`${s} daily`))).toEqual([1, 1]);
      } finally {
        await provided.cleanup();
      }
    }, 90_000);
  });
}
