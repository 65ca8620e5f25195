import { describe, expect, it } from 'vitest';
import {
  createRunner,
  GracefulStop,
  MemoryStore,
  type RunHead,
  type StatecrewEvent,
} from '../../src/index.js';
import { encodeRunValue } from '../../src/runtime/durable/codec.js';
import { Gate, heldFlow } from '../fixtures/durable/held.js';
import { codeOf } from '../store-helpers.js';

/** The head of a run whose owner is gone before it wrote anything but its claim. */
function orphan(id: string): RunHead {
  const lease = { owner: 'gone:1', token: 't', expiresAt: 0, host: 'elsewhere', pid: 1, thread: 0 };
  const data = { inputs: encodeRunValue({ id }) };
  return {
    id,
    kind: 'flow',
    name: 'held',
    status: 'running',
    version: 1,
    lease,
    data,
    createdAt: 0,
    updatedAt: 0,
  };
}

describe('a graceful stop', () => {
  it('lets the step in flight commit, starts no other, and keeps the run running with no lease (run.suspended), not aborted', async () => {
    const store = new MemoryStore();
    const gate = new Gate();
    const ran = new Map<string, number>();
    const controller = new AbortController();
    const run = heldFlow(store, gate, ran).run({ inputs: { id: 'f1' }, signal: controller.signal });
    const events: StatecrewEvent[] = [];
    run.events$.subscribe((event) => events.push(event));
    await gate.whenReached(1);
    const stop = new GracefulStop(60_000);
    controller.abort(stop);
    gate.open();
    expect(await codeOf(run.result)).toBe('suspended');
    stop.now();
    expect(await store.readRun('f1')).toMatchObject({ status: 'running', lease: null });
    expect(events.at(-1)).toMatchObject({ type: 'run.suspended', runId: 'f1', abandoned: [] });
    expect(events.some((e) => e.type === 'run.failed')).toBe(false);
    expect([...ran]).toEqual([['s1', 1]]);

    const runner = createRunner({ store, flows: [heldFlow(store, gate, ran)] });
    expect(await runner.recover()).toMatchObject({ resumed: ['f1'], failed: [] });
    await runner.close();
    expect(await store.readRun('f1')).toMatchObject({ status: 'completed', lease: null });
    expect([...ran]).toEqual([
      ['s1', 1],
      ['s2', 1],
      ['s3', 1],
    ]);
  });

  it('closing a runner suspends the runs it resumed; they stay running with no lease for the next runner', async () => {
    const store = new MemoryStore();
    await store.createRun(orphan('f2'));
    const gate = new Gate();
    const ran = new Map<string, number>();
    const runner = createRunner({ store, flows: [heldFlow(store, gate, ran)] });
    const pass = runner.recover();
    await gate.whenReached(1);
    const closed = runner.close();
    gate.open();
    await closed;
    expect(await pass).toMatchObject({ resumed: [], skipped: ['f2'], failed: [] });
    expect(await store.readRun('f2')).toMatchObject({ status: 'running', lease: null });
    expect([...ran]).toEqual([['s1', 1]]);

    const next = createRunner({ store, flows: [heldFlow(store, gate, ran)] });
    expect(await next.recover()).toMatchObject({ resumed: ['f2'] });
    await next.close();
    expect(await store.readRun('f2')).toMatchObject({ status: 'completed' });
    expect(ran.get('s1')).toBe(1);
  });

  it('closing a runner again ends the grace at once: the step in flight is abandoned, its lease released all the same', async () => {
    const store = new MemoryStore();
    await store.createRun(orphan('f3'));
    const gate = new Gate();
    const ran = new Map<string, number>();
    const runner = createRunner({ store, flows: [heldFlow(store, gate, ran)], shutdownGraceMs: 600_000 });
    const events: StatecrewEvent[] = [];
    runner.events$.subscribe((event) => events.push(event));
    void runner.recover();
    await gate.whenReached(1);
    const closed = runner.close();
    await runner.close();
    await closed;
    expect(await store.readRun('f3')).toMatchObject({ status: 'running', lease: null });
    expect(events.find((e) => e.type === 'run.suspended')).toMatchObject({ runId: 'f3', abandoned: ['s1'] });

    gate.open();
    const next = createRunner({ store, flows: [heldFlow(store, gate, ran)] });
    expect(await next.recover()).toMatchObject({ resumed: ['f3'] });
    await next.close();
    expect(await store.readRun('f3')).toMatchObject({ status: 'completed' });
    // At least once: the abandoned step ran again on resume.
    expect(ran.get('s1')).toBe(2);
  });

  it('refuses a grace that is not a whole number of ms from 0 (invalid_option)', async () => {
    expect(() => new GracefulStop(-1)).toThrow(/option "graceMs" must be a whole number of ms from 0/);
    const store = new MemoryStore();
    expect(() => createRunner({ store, shutdownGraceMs: 1.5 })).toThrow(/shutdownGraceMs/);
  });
});
