import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFlow, readEvents, type Store } from '../../src/index.js';
import { sqliteStore } from '../durable/store-specs.js';
import { openStore } from '../fixtures/durable/stores.js';

const N = 10_000;

describe('a map of 10,000 function items on SQLite', () => {
  let store: Store;
  let cleanup: () => Promise<void>;

  beforeEach(async () => {
    const provided = sqliteStore();
    store = await openStore(provided.spec);
    cleanup = provided.cleanup;
  });

  afterEach(async () => {
    await store.close();
    await cleanup();
  });

  it('runs every item, keeps a record of each, and keeps two events per item in the event log', {
    timeout: 240_000,
  }, async () => {
    let calls = 0;
    const flow = createFlow({ name: 'wide', initialState: {}, store })
      .start('begin', () => 'go')
      .map('double', 'begin', {
        items: () => Array.from({ length: N }, (_, i) => i),
        concurrency: 16,
        run: (i: number) => {
          calls += 1;
          return i * 2;
        },
      });
    const out = await flow.kickoff({ inputs: { id: 'wide-1' }, events: 'store' });
    expect(out.status).toBe('completed');
    const results = out.outputs.double as { output: number; status: string }[];
    expect(results).toHaveLength(N);
    expect(results.every((r, i) => r.status === 'completed' && r.output === i * 2)).toBe(true);
    expect(calls).toBe(N);
    const records = await store.list('flow_runs', 'wide-1');
    expect(records.filter((r) => r.key.startsWith('item:double:'))).toHaveLength(N);
    // The event log holds two flow.item events per item and the run's own: no more.
    const events = await readEvents(store, 'wide-1');
    const items = events.filter((e) => e.event.type === 'flow.item');
    expect(items).toHaveLength(2 * N);
    expect(events.length).toBeLessThan(2 * N + 50);
  });
});
