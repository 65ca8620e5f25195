import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  Agent,
  Crew,
  createFlow,
  MemoryStore,
  SqliteStore,
  type Store,
  StoreUnavailableError,
  Task,
} from '../../src/index.js';
import { createScriptedModel } from '../../src/testing.js';
import { codeOf, wrapStore } from '../store-helpers.js';

const root = mkdtempSync(join(tmpdir(), 'statecrew-failing-writes-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const broken = () => Promise.reject(new StoreUnavailableError('BrokenStore', 'disk', 'full'));
const kinds: [string, () => Store][] = [
  ['memory', () => new MemoryStore()],
  ['SQLite', () => new SqliteStore({ path: join(root, `${Math.random().toString(36).slice(2)}.db`) })],
];

function countedFlow(store: Store, calls: string[]) {
  return createFlow({ name: 'steps', store, initialState: { n: 0 } })
    .start('a', ({ state }) => {
      calls.push('a');
      state.n += 1;
      return 'a';
    })
    .listen('b', 'a', ({ state }) => {
      calls.push('b');
      state.n += 10;
      return 'b';
    });
}

for (const [kind, open] of kinds) {
  describe(`a store that fails a write, on ${kind}`, () => {
    it('fails a flow fork whose first commit fails: store_unavailable, its head failed, the source untouched', async () => {
      const store = open();
      const calls: string[] = [];
      await countedFlow(store, calls).kickoff({ inputs: { id: 'source' } });
      let failures = 0;
      const failing = wrapStore(store, {
        commit: (id, commit) => {
          if (id !== 'fork-1' || failures > 0) return store.commit(id, commit);
          failures += 1;
          return broken();
        },
      });
      calls.length = 0;
      expect(await codeOf(countedFlow(failing, calls).fork('source', { at: 'a', id: 'fork-1' }))).toBe(
        'store_unavailable',
      );
      expect(calls).toEqual([]);
      expect((await store.readRun('fork-1'))?.status).toBe('failed');
      const source = await countedFlow(store, calls).history('source');
      expect(source.checkpoints.map((c) => c.nodeId)).toEqual(['a', 'b']);
      // The same fork again, under another id: it runs only `b`.
      const again = await countedFlow(store, calls).fork('source', { at: 'a', id: 'fork-2' });
      expect(again.status).toBe('completed');
      expect(calls).toEqual(['b']);
      await store.close();
    });

    it('stops a crew fork whose kept results cannot be written before any model call; its resume is refused, a new fork runs', async () => {
      const store = open();
      const llm = createScriptedModel(() => 'text');
      const crewOn = (s: Store) => {
        const writer = new Agent({ role: 'Writer', llm });
        const tasks = ['t1', 't2', 't3'].map(
          (name) => new Task({ name, description: `Do ${name}`, agent: writer }),
        );
        return new Crew({ name: 'three', tasks, store: s });
      };
      await crewOn(store).kickoff({ executionId: 'source' });
      let down = true;
      const failing = wrapStore(store, {
        commit: (id, commit) => (down && id === 'fork-1' ? broken() : store.commit(id, commit)),
      });
      const before = llm.calls.length;
      expect(await codeOf(crewOn(failing).fork('source', { at: 't2', id: 'fork-1' }))).toBe(
        'store_unavailable',
      );
      expect(llm.calls.length).toBe(before);
      down = false;
      // Its edits were never kept: going on would run it as a fresh run, so it is refused and left failed.
      expect(await codeOf(crewOn(store).resume('fork-1'))).toBe('corrupt_snapshot');
      expect((await store.readRun('fork-1'))?.status).toBe('failed');
      expect(llm.calls.length).toBe(before);
      const out = await crewOn(store).fork('source', { at: 't2', id: 'fork-2' });
      expect(out.status).toBe('completed');
      expect(llm.calls.length).toBe(before + 1); // t3 alone: t1 and t2 were kept
      const kept = await crewOn(store).history('fork-2');
      expect(kept.checkpoints.map((c) => c.nodeId)).toEqual(['t1', 't2', 't3']);
      await store.close();
    });

    it('refuses a threaded kickoff whose thread entry cannot be written, running nothing, and the thread works after', async () => {
      const store = open();
      const calls: string[] = [];
      let down = true;
      const failing = wrapStore(store, {
        insert: (collection, id, key, value) =>
          down && collection === 'run_threads' ? broken() : store.insert(collection, id, key, value),
      });
      expect(await codeOf(countedFlow(failing, calls).kickoff({ thread: 'chat' }))).toBe('store_unavailable');
      expect(calls).toEqual([]);
      expect(await store.listRuns({ thread: 'chat' })).toEqual([]);
      down = false;
      const out = await countedFlow(store, calls).kickoff({ thread: 'chat' });
      expect(out).toMatchObject({ status: 'completed', thread: 'chat' });
      await store.close();
    });
  });
}
