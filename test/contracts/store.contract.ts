import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { JsonValue, Store, StoreCollection } from '../../src/stores/store.js';
import { codeOf } from '../store-helpers.js';
import { runStoreContract } from './run-store.contract.js';

/** What the contract needs of one store implementation. */
export interface StoreHarness {
  /** A fresh, empty store of its own (its own file, schema or key prefix). */
  open(): Promise<Store>;
  /** A second store object on the same data as the last `open()` (another writer). */
  reopen(): Promise<Store>;
  /** Whether what was written outlives the store object (false for memory). */
  durable: boolean;
  /** Writes a row as a foreign or broken writer would: a format version and raw text. */
  writeRaw(
    store: Store,
    collection: StoreCollection,
    executionId: string,
    key: string,
    version: unknown,
    text: string,
  ): Promise<void>;
  /** A store whose server or file cannot be reached (absent for memory, which always is). */
  unreachable?(): Promise<Store>;
  /** Removes what the last `open()` created (schema, keys, file). */
  cleanup(): Promise<void>;
}

/** The behaviour every store shares, run against `harness`'s implementation. */
export function storeContract(name: string, harness: StoreHarness): void {
  describe(`${name}: the store contract`, () => {
    let store: Store;
    const others: Store[] = [];

    beforeEach(async () => {
      store = await harness.open();
    });

    afterEach(async () => {
      for (const other of others.splice(0)) await other.close();
      await store.close();
      await harness.cleanup();
    });

    it('saves and fetches records by execution id; a missing id has none', async () => {
      const value = { raw: 'done', n: 3, ok: true, none: null, list: [1, 'two', { three: 3 }] };
      await store.put('crew_task_results', 'exec-1', 'research', value);
      const record = await store.get('crew_task_results', 'exec-1', 'research');
      expect(record?.value).toEqual(value);
      expect(typeof record?.updatedAt).toBe('number');
      expect(await store.get('crew_task_results', 'exec-1', 'write')).toBeUndefined();
      expect(await store.get('crew_task_results', 'exec-2', 'research')).toBeUndefined();
      expect(await store.get('crew_executions', 'exec-1', 'research')).toBeUndefined();
      expect(await store.list('crew_task_results', 'no-such-run')).toEqual([]);
    });

    it('lists an execution in first-write order; a rewrite replaces the value and keeps its place', async () => {
      for (const key of ['c', 'a', 'b']) await store.put('crew_task_results', 'exec-1', key, { key });
      await store.put('crew_task_results', 'exec-2', 'z', 1);
      await store.put('crew_task_results', 'exec-1', 'c', { key: 'c', again: true });
      const listed = await store.list('crew_task_results', 'exec-1');
      expect(listed.map((r) => r.key)).toEqual(['c', 'a', 'b']);
      expect(listed[0]?.value).toEqual({ key: 'c', again: true });
    });

    it('claims an address once: insert writes only where nothing is', async () => {
      expect(await store.insert('flow_runs', 'run-1', 'run', { status: 'running' })).toBe(true);
      expect(await store.insert('flow_runs', 'run-1', 'run', { status: 'other' })).toBe(false);
      expect((await store.get('flow_runs', 'run-1', 'run'))?.value).toEqual({ status: 'running' });
      const claims = await Promise.all(
        Array.from({ length: 8 }, (_, i) => store.insert('flow_runs', 'run-2', 'run', { claimant: i })),
      );
      expect(claims.filter(Boolean)).toHaveLength(1);
    });

    it('lists the execution ids of a collection, sorted, each collection on its own', async () => {
      await store.put('crew_executions', 'b-run', 'run', 1);
      await store.put('crew_executions', 'a-run', 'run', 2);
      await store.put('crew_task_results', 'c-run', 'x', 3);
      await store.put('crew_task_results', 'c-run', 'y', 4);
      expect(await store.executions('crew_executions')).toEqual(['a-run', 'b-run']);
      expect(await store.executions('crew_task_results')).toEqual(['c-run']);
      expect(await store.executions('flow_runs')).toEqual([]);
    });

    it('keeps quotes, unicode and 1 MB values exactly', async () => {
      const tricky = `it's "quoted" \\ back\\slash; DROP TABLE x; -- ${'\u0000'} tab\t nl\n 💥 日本語 עברית`;
      const big = 'x'.repeat(1024 * 1024);
      const id = `exec "quoted" 'ids' 💥`;
      await store.put('crew_task_results', id, `key 'with' "quotes" ✓`, { tricky, big });
      const record = await store.get('crew_task_results', id, `key 'with' "quotes" ✓`);
      expect(record?.value).toEqual({ tricky, big });
      expect(await store.executions('crew_task_results')).toEqual([id]);
    });

    it('takes concurrent writers: every record of two store objects written at once is kept', async () => {
      const other = await harness.reopen();
      others.push(other);
      const writes = Array.from({ length: 40 }, (_, i) =>
        (i % 2 === 0 ? store : other).put('crew_task_results', 'exec-c', `task-${i}`, { i }),
      );
      await Promise.all(writes);
      const listed = await store.list('crew_task_results', 'exec-c');
      expect(listed.map((r) => r.key).sort()).toEqual(
        Array.from({ length: 40 }, (_, i) => `task-${i}`).sort(),
      );
      const values: JsonValue[] = [{ w: 1 }, { w: 2 }, { w: 3 }];
      await Promise.all(values.map((v, i) => (i % 2 === 0 ? store : other).put('flow_runs', 'r', 'run', v)));
      expect(values).toContainEqual((await other.get('flow_runs', 'r', 'run'))?.value);
    });

    it('refuses what JSON cannot carry and addresses it does not know, naming them (invalid_option)', async () => {
      const circular: Record<string, unknown> = {};
      circular.self = circular;
      const bad = [
        store.put('crew_task_results', 'e', 'k', circular as JsonValue),
        store.put('crew_task_results', 'e', 'k', undefined as unknown as JsonValue),
        store.put('crew_task_results', 'e', 'k', { n: 1n } as unknown as JsonValue),
        store.put('no_such_collection' as StoreCollection, 'e', 'k', 1),
        store.put('crew_task_results', '', 'k', 1),
        store.put('crew_task_results', 'nul\u0000id', 'k', 1),
        store.put('crew_task_results', 'e', 'lone \uD800 surrogate', 1),
        store.get('crew_task_results', 'e', ''),
      ];
      for (const attempt of bad) expect(await codeOf(attempt)).toBe('invalid_option');
      expect(await store.list('crew_task_results', 'e')).toEqual([]);
    });

    it('refuses a corrupt row and a row of an unknown format version, naming the record', async () => {
      await harness.writeRaw(store, 'flow_runs', 'broken', 'run', 1, '{"not json');
      await harness.writeRaw(store, 'flow_runs', 'future', 'run', 99, '{"a":1}');
      expect(await codeOf(store.get('flow_runs', 'broken', 'run'))).toBe('corrupt_snapshot');
      expect(await codeOf(store.list('flow_runs', 'broken'))).toBe('corrupt_snapshot');
      expect(await codeOf(store.get('flow_runs', 'future', 'run'))).toBe('snapshot_version');
      await store.get('flow_runs', 'broken', 'run').catch((error: Error) => {
        expect(error.message).toContain('flow_runs/broken/run');
      });
    });

    it('fails every call after close with store_closed', async () => {
      await store.put('crew_executions', 'e', 'run', 1);
      await store.close();
      const calls = [
        store.put('crew_executions', 'e', 'run', 2),
        store.insert('crew_executions', 'e', 'run2', 2),
        store.get('crew_executions', 'e', 'run'),
        store.list('crew_executions', 'e'),
        store.executions('crew_executions'),
      ];
      for (const call of calls) expect(await codeOf(call)).toBe('store_closed');
      await store.close(); // closing twice is harmless
      if (harness.durable) {
        store = await harness.reopen();
        expect((await store.get('crew_executions', 'e', 'run'))?.value).toBe(1);
      }
    });

    const { unreachable } = harness;
    if (unreachable !== undefined) {
      it('fails fast with store_unavailable when its server or file cannot be reached', async () => {
        const nowhere = await unreachable();
        others.push(nowhere);
        expect(await codeOf(nowhere.put('crew_executions', 'e', 'run', 1))).toBe('store_unavailable');
        expect(await codeOf(nowhere.get('crew_executions', 'e', 'run'))).toBe('store_unavailable');
      });
    }
  });
  runStoreContract(name, harness);
}
