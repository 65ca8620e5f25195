import { describe, expect, it } from 'vitest';
import {
  createFlow,
  createRunner,
  MemoryStore,
  type RunFilter,
  type RunHead,
  type StatecrewEvent,
  type Store,
} from '../../src/index.js';
import { wrapStore } from '../store-helpers.js';

/** A two-step flow that counts its steps' runs. */
function countedFlow(store: Store, ran: string[]) {
  return createFlow({ name: 'counted', initialState: {}, store })
    .start('a', () => {
      ran.push('a');
      return 'a';
    })
    .listen('b', 'a', () => {
      ran.push('b');
      return 'b';
    });
}

/** `store`, but its listing of running runs is `listed`: what a runner read just before another runner finished them. */
function listingStale(store: MemoryStore, listed: RunHead[]): Store {
  return wrapStore(store, {
    listRuns: async (filter?: RunFilter) =>
      filter?.statuses?.includes('running') === true ? listed : store.listRuns(filter),
  });
}

describe('a runner whose listing is older than the run', () => {
  it('reports a run another runner finished since it was listed as skipped, runs nothing, and says nothing of recovering it', async () => {
    const store = new MemoryStore();
    const ran: string[] = [];
    await countedFlow(store, ran).kickoff({ inputs: { id: 'done' } });
    const done = (await store.readRun('done')) as RunHead;
    expect(done.status).toBe('completed');
    // As a runner saw it before another took it: running, its owner's lease long expired.
    const lease = {
      ...(done.lease ?? {}),
      owner: 'gone:1',
      token: 'old',
      expiresAt: 1,
      host: 'gone',
      pid: 1,
      thread: 0,
    };
    const stale: RunHead = { ...done, status: 'running', version: done.version - 1, lease };
    const shared = listingStale(store, [stale]);
    const runner = createRunner({ store: shared, flows: [countedFlow(shared, ran)] });
    const events: StatecrewEvent[] = [];
    runner.events$.subscribe((event) => events.push(event));
    try {
      const report = await runner.recover();
      expect(report.resumed).toEqual([]);
      expect(report.skipped).toEqual(['done']);
      expect(events.map((e) => e.type)).not.toContain('run.recovered');
      expect(ran).toEqual(['a', 'b']);
    } finally {
      await runner.close();
    }
  });
});
