import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  Crew,
  ExecutionDocument,
  MemoryStore,
  SqliteStore,
  type StatecrewEvent,
  StoreUnavailableError,
  Task,
} from '../../src/index.js';
import type { JsonValue, Store } from '../../src/stores/store.js';
import { createScriptedModel } from '../../src/testing.js';
import { agent, echoModel, tickingClock } from '../helpers.js';
import { GatedStore, wrapStore } from '../store-helpers.js';

const root = mkdtempSync(join(tmpdir(), 'statecrew-crew-store-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function chain(store: Store, llm = echoModel()) {
  const writer = agent('Writer', llm);
  const tasks = ['outline', 'draft', 'polish'].map(
    (name) => new Task({ name, description: `Do the ${name}`, agent: writer }),
  );
  return new Crew({ name: 'blog', tasks, store });
}

describe('a crew with a store', () => {
  it('writes each task result before the task that reads it starts', async () => {
    const store = new GatedStore();
    const model = echoModel();
    const run = chain(store, model).run({ clock: tickingClock() });
    await store.whenCommits(1);
    expect(store.commits).toEqual([['crew_task_results/outline']]);
    expect(model.calls).toHaveLength(1); // draft has not started: outline is not stored yet
    store.land();
    await store.whenCommits(2);
    expect(model.calls).toHaveLength(2);
    store.land();
    await store.whenCommits(3);
    store.land();
    await store.whenCommits(4);
    expect(store.commits.at(-1)).toEqual(['crew_executions/run']);
    store.land();
    const out = await run.result;
    expect(out.status).toBe('completed');
    expect(out.metadata.storeErrors).toEqual([]);
  });

  it('reads back as an ExecutionDocument: results in execution order, the output, deterministic Markdown', async () => {
    const store = new MemoryStore();
    const out = await chain(store).kickoff({ clock: tickingClock(), executionId: 'run-1' });
    const doc = await ExecutionDocument.fromStore(store, 'run-1');
    expect(doc).toMatchObject({
      executionId: 'run-1',
      crew: 'blog',
      process: 'sequential',
      status: 'completed',
      output: out.output as JsonValue,
      summary: out.summary,
      totalTimeMs: out.totalTimeMs,
    });
    expect(doc?.results.map((r) => [r.nodeId, r.status, r.raw])).toEqual(
      out.tasksOutput.map((t) => [t.name, 'completed', t.raw]),
    );
    expect(doc?.results[0]).toEqual({
      nodeId: 'outline',
      name: 'outline',
      agent: 'Writer',
      description: 'Do the outline',
      raw: 'Writer: Do the outline',
      status: 'completed',
      attempts: 1,
      durationMs: out.nodes[0]?.durationMs,
      usage: out.nodes[0]?.usage,
      startedAt: out.nodes[0]?.startedAt,
      prompt: 'You are Writer.\nTask: Do the outline',
      context: '',
    });
    expect(doc?.results[1]?.context).toBe('Writer: Do the outline');
    const again = await chain(new MemoryStore()).kickoff({ clock: tickingClock(), executionId: 'run-1' });
    const other = new MemoryStore();
    await chain(other).kickoff({ clock: tickingClock(), executionId: 'run-1' });
    expect(again.raw).toBe(out.raw);
    expect((await ExecutionDocument.fromStore(other, 'run-1'))?.toMarkdown()).toBe(doc?.toMarkdown());
    expect(doc?.toMarkdown()).toContain('### 2. draft — completed');
    expect(JSON.parse(JSON.stringify(doc))).toEqual(doc?.toJSON());
    expect(await ExecutionDocument.fromStore(store, 'no-such-run')).toBeUndefined();
  });

  it('stores a task that failed for good with its code, and graph dependents wait for the write', async () => {
    const store = new MemoryStore();
    const llm = createScriptedModel((request) => {
      if (request.prompt.includes('Task: b')) throw new StoreUnavailableError('Model', 'nowhere', 'down');
      return 'ok';
    });
    const w = agent('W', llm);
    const a = new Task({ name: 'a', description: 'a', agent: w });
    const b = new Task({ name: 'b', description: 'b', agent: w, context: [a], maxRetries: 0 });
    const c = new Task({ name: 'c', description: 'c', agent: w, context: [a] });
    const out = await new Crew({ tasks: [a, b, c], process: 'graph', store }).kickoff({ executionId: 'g' });
    expect(out.status).toBe('partial');
    const doc = await ExecutionDocument.fromStore(store, 'g');
    expect(doc?.crew).toBe('crew');
    expect(doc?.results.map((r) => `${r.nodeId}:${r.status}`).sort()).toEqual([
      'a:completed',
      'b:failed',
      'c:completed',
    ]);
    expect(doc?.results.find((r) => r.nodeId === 'b')).toMatchObject({ code: 'store_unavailable' });
  });

  it('stops when a write fails: nothing after it starts, the error is store_unavailable, resume finishes', async () => {
    const store = new MemoryStore();
    let broken = true;
    const failing = wrapStore(store, {
      commit: (id, commit) =>
        broken && commit.writes.some((w) => w.key === 'draft')
          ? Promise.reject(new StoreUnavailableError('BrokenStore', 'disk', 'full'))
          : store.commit(id, commit),
    });
    const model = echoModel();
    await expect(chain(failing, model).kickoff({ executionId: 'b' })).rejects.toMatchObject({
      code: 'store_unavailable',
    });
    expect(model.calls).toHaveLength(2); // polish never started
    broken = false;
    const out = await chain(store, model).resume('b');
    expect(out.status).toBe('completed');
    expect(out.metadata.restored).toEqual(['outline']);
    expect(model.calls).toHaveLength(4); // only the in-flight draft ran again, then polish
  });

  it('goes on past a failed write with onStoreError continue: a store.error event and metadata.storeErrors', async () => {
    const store = new MemoryStore();
    const failing = wrapStore(store, {
      commit: (id, commit) =>
        commit.writes.some((w) => w.key === 'draft')
          ? Promise.reject(new StoreUnavailableError('BrokenStore', 'disk', 'full'))
          : store.commit(id, commit),
    });
    const writer = agent('Writer', echoModel());
    const tasks = ['outline', 'draft', 'polish'].map(
      (name) => new Task({ name, description: `Do the ${name}`, agent: writer }),
    );
    const crew = new Crew({ name: 'blog', tasks, store: failing, onStoreError: 'continue' });
    const run = crew.run({ executionId: 'b' });
    const events: StatecrewEvent[] = [];
    run.events$.subscribe((e) => events.push(e));
    const out = await run.result;
    expect(out.status).toBe('completed');
    expect(out.metadata.storeErrors).toEqual([
      {
        collection: 'crew_task_results',
        key: 'draft',
        error: 'BrokenStore cannot reach disk: full (store_unavailable)',
        code: 'store_unavailable',
      },
    ]);
    expect(events.filter((e) => e.type === 'store.error')).toHaveLength(1);
    const doc = await ExecutionDocument.fromStore(store, 'b');
    expect(doc?.results.map((r) => r.nodeId)).toEqual(['outline', 'polish']);
  });

  it('reads a run whose process stopped before its end as interrupted', async () => {
    // A process that died wrote its task results and never its run document: a store that loses
    // every run document stands in for it.
    const store = new MemoryStore();
    const losing = wrapStore(store, {
      commit: (id, commit) =>
        commit.writes.some((w) => w.collection === 'crew_executions')
          ? Promise.reject(new Error('gone'))
          : store.commit(id, commit),
    });
    const controller = new AbortController();
    const llm = createScriptedModel((request) => {
      if (request.prompt.includes('Task: Do the polish')) controller.abort('shutdown');
      return 'text';
    });
    await expect(
      chain(losing, llm).kickoff({ signal: controller.signal, executionId: 'i' }),
    ).rejects.toMatchObject({
      code: 'aborted',
    });
    const doc = await ExecutionDocument.fromStore(store, 'i');
    expect(doc).toMatchObject({
      status: 'interrupted',
      crew: 'blog',
      process: 'sequential',
      output: undefined,
    });
    expect(doc?.results.map((r) => r.nodeId)).toEqual(['outline', 'draft']);
    expect(doc?.toMarkdown()).toContain('- Status: interrupted');
  });

  it('keeps runs in a SQLite file that a new store object reads back', async () => {
    const path = join(root, 'crew.db');
    const writing = new SqliteStore({ path });
    await chain(writing).kickoff({ executionId: 'file-run' });
    await writing.close();
    const reading = new SqliteStore({ path });
    const doc = await ExecutionDocument.fromStore(reading, 'file-run');
    expect(doc?.status).toBe('completed');
    expect(doc?.results).toHaveLength(3);
    expect(await reading.executions('crew_executions')).toEqual(['file-run']);
    await reading.close();
  });

  it('refuses a bad name or something that is not a store (invalid_option)', () => {
    const tasks = [new Task({ name: 't', description: 'x', agent: agent('W', echoModel()) })];
    expect(() => new Crew({ tasks, name: '' })).toThrow(expect.objectContaining({ code: 'invalid_option' }));
    expect(() => new Crew({ tasks, store: {} as MemoryStore })).toThrow(/option "store"/);
  });
});
