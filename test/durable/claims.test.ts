import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { Agent, Crew, createFlow, MemoryStore, SqliteStore, Task } from '../../src/index.js';
import { echoModel } from '../helpers.js';

const Database = createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;
const root = mkdtempSync(join(tmpdir(), 'statecrew-claims-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function twoTasks(store: MemoryStore | SqliteStore, model = echoModel(), name = 'pair') {
  const agent = new Agent({ role: 'Writer', llm: model });
  const tasks = ['one', 'two'].map((t) => new Task({ name: t, description: `${t} on {topic}`, agent }));
  return new Crew({ name, tasks, store });
}

describe('claiming a run', () => {
  it('refuses a crew kickoff naming a stored run, of any crew or flow, before any call (run_exists)', async () => {
    const store = new MemoryStore();
    await twoTasks(store, echoModel(), 'first').kickoff({ executionId: 'taken', inputs: { topic: 'AI' } });
    await createFlow({ name: 'f', initialState: {}, store })
      .start('a', () => 1)
      .kickoff({ inputs: { id: 'flow-run' } });
    for (const id of ['taken', 'flow-run']) {
      const model = echoModel();
      const error = await twoTasks(store, model, 'second')
        .kickoff({ executionId: id })
        .catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'run_exists', details: { id } });
      expect(model.calls).toHaveLength(0);
    }
    // The stored run is untouched: still the first crew's, completed.
    expect(await store.readRun('taken')).toMatchObject({ kind: 'crew', name: 'first', status: 'completed' });
    expect((await store.list('crew_task_results', 'taken')).map((r) => r.key)).toEqual(['one', 'two']);
  });

  it('refuses run ids no store keeps: empty, over 512 characters, a NUL, a lone surrogate (invalid_option)', async () => {
    const store = new MemoryStore();
    const bad = ['', 'x'.repeat(513), 'a\u0000b', 'lone \uD800 half'];
    for (const id of bad) {
      const model = echoModel();
      expect(() => twoTasks(store, model).run({ executionId: id })).toThrow(
        expect.objectContaining({
          code: 'invalid_option',
          details: expect.objectContaining({ option: 'executionId' }),
        }),
      );
      expect(() =>
        createFlow({ name: 'f', initialState: {} })
          .start('a', () => 1)
          .run({ inputs: { id } }),
      ).toThrow(expect.objectContaining({ code: 'invalid_option' }));
      expect(model.calls).toHaveLength(0);
    }
    const longest = 'y'.repeat(512);
    expect((await twoTasks(store).kickoff({ executionId: longest })).metadata.executionId).toBe(longest);
    expect(await store.readRun(longest)).toMatchObject({ status: 'completed' });
  });

  it('refuses a lease or store error policy it cannot use (invalid_option)', () => {
    const store = new MemoryStore();
    const tasks = [new Task({ description: 'x', agent: new Agent({ role: 'W', llm: echoModel() }) })];
    expect(() => new Crew({ tasks, store, leaseMs: 5 })).toThrow(/leaseMs/);
    expect(() => new Crew({ tasks, store, onStoreError: 'ignore' as 'stop' })).toThrow(/onStoreError/);
    expect(() => createFlow({ name: 'f', initialState: {}, leaseMs: 1.5 })).toThrow(/leaseMs/);
  });

  it('keeps the driver’s code of a full SQLite disk as the cause (store_unavailable, SQLITE_FULL)', async () => {
    const db = new Database(join(root, 'full.db'));
    const store = new SqliteStore({ database: db });
    const flow = createFlow({ name: 'big', initialState: { text: '' }, store })
      .start('small', () => 'ok')
      .listen('huge', 'small', ({ state }) => {
        // From here the file may not grow: the next commit cannot be written.
        db.pragma(`max_page_count = ${db.pragma('page_count', { simple: true }) as number}`);
        state.text = 'x'.repeat(200_000);
        return 'grown';
      })
      .listen('after', 'huge', () => 'never');
    const error = await flow.kickoff({ inputs: { id: 'full' } }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'store_unavailable', details: { cause: 'SQLITE_FULL' } });
    expect((await store.readRun('full'))?.status).toBe('running');
    await store.close();
    db.close();
  });
});
