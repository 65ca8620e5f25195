import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  Agent,
  Crew,
  createFlow,
  type RunCommit,
  type Store,
  StoreUnavailableError,
  Task,
} from '../../src/index.js';
import { createScriptedModel } from '../../src/testing.js';
import { sqliteStore } from '../durable/store-specs.js';
import { openStore } from '../fixtures/durable/stores.js';
import { taskLine } from '../helpers.js';
import { wrapStore } from '../store-helpers.js';

/** A one-task crew that summarizes `{doc}`, counting the model's calls per doc. */
function summarizer() {
  const calls = new Map<string, number>();
  const llm = createScriptedModel((request) => {
    const doc = taskLine(request.prompt).replace('Task: Summarize ', '');
    calls.set(doc, (calls.get(doc) ?? 0) + 1);
    return `summary of ${doc}`;
  });
  const writer = new Agent({ role: 'Writer', llm, maxRetries: 0 });
  const crew = new Crew({
    tasks: [new Task({ name: 'summarize', description: 'Summarize {doc}', agent: writer })],
  });
  return { crew, calls };
}

const DOCS = ['a', 'b', 'c', 'd', 'e', 'f'];

function digest(store: Store, crew: Crew) {
  return createFlow({ name: 'digest', initialState: { docs: DOCS }, store })
    .start('begin', () => 'go')
    .map('summaries', 'begin', {
      items: ({ state }) => state.docs.map((doc) => ({ doc })),
      itemId: (item) => item.doc,
      run: crew,
      concurrency: 2,
    })
    .listen('count', 'summaries', ({ payload }) => (payload as unknown[]).length);
}

/** `store`, failing (store_unavailable) the commits that write the record `key`, while `broken.on`. */
function failingAt(store: Store, key: string, broken = { on: true }): Store {
  return wrapStore(store, {
    commit: (id: string, commit: RunCommit) =>
      broken.on && commit.writes.some((w) => w.key === key)
        ? Promise.reject(new StoreUnavailableError('FailingStore', 'its disk', { code: 'SQLITE_FULL' }))
        : store.commit(id, commit),
  });
}

describe('map item records on SQLite', () => {
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

  it('keeps one record per settled item beside the run’s own records', async () => {
    const { crew } = summarizer();
    const out = await digest(store, crew).kickoff({ inputs: {} });
    expect(out.status).toBe('completed');
    const keys = (await store.list('flow_runs', out.state.id)).map((r) => r.key);
    const items = keys.filter((k) => k.startsWith('item:')).sort();
    expect(items).toEqual(DOCS.map((_, i) => `item:summaries:00000${i}`));
    expect(keys.filter((k) => !k.startsWith('item:')).sort()).toEqual([
      'run',
      'step:begin',
      'step:count',
      'step:summaries',
    ]);
  });

  it('stops the run at a failed item write (store_unavailable); a resume runs only the items it lacks', async () => {
    const first = summarizer();
    const error = await digest(failingAt(store, 'item:summaries:000003'), first.crew)
      .kickoff({ inputs: { id: 'r1' } })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'store_unavailable' });
    const kept = (await store.list('flow_runs', 'r1')).filter((r) => r.key.startsWith('item:'));
    // The items before item 3 landed, but those committed with it (writes ride one commit in a burst);
    // nothing after the failure is committed.
    const keys = kept.map((r) => r.key);
    expect(keys.length).toBeGreaterThanOrEqual(1);
    expect(keys).toEqual(DOCS.slice(0, keys.length).map((_, i) => `item:summaries:00000${i}`));
    expect(keys.length).toBeLessThanOrEqual(3);
    const second = summarizer();
    const out = await digest(store, second.crew).resume('r1');
    expect(out.status).toBe('completed');
    expect(out.outputs.count).toBe(6);
    expect((out.outputs.summaries as { output: { raw: string } }[]).map((r) => r.output.raw)).toEqual(
      DOCS.map((d) => `summary of ${d}`),
    );
    // No model call again for an item that finished: kept ones are read back, and those whose record
    // was lost with the failed commit go on with their completed crew run.
    for (const doc of DOCS) expect((first.calls.get(doc) ?? 0) + (second.calls.get(doc) ?? 0)).toBe(1);
  });

  it('leaves the snapshot, the history, a fork and pruning as they were', async () => {
    const { crew, calls } = summarizer();
    const flow = digest(store, crew);
    const out = await flow.kickoff({ inputs: { id: 'r2' } });
    // A resume of the completed run reads its snapshot back and runs nothing.
    const again = await flow.resume('r2');
    expect(again.outputs).toEqual(out.outputs);
    expect(again.trail).toEqual(out.trail);
    const history = await flow.history('r2');
    expect(history.checkpoints.map((c) => c.checkpoint)).toEqual(['begin', 'summaries', 'count']);
    // A fork before the map runs it again, under the fork's own id.
    const fork = await flow.fork('r2', { at: 'begin', id: 'r2-fork' });
    expect(fork.status).toBe('completed');
    expect(fork.outputs.count).toBe(6);
    expect(calls.get('a')).toBe(2);
    expect(await store.readRun('r2-fork/summaries/a')).toMatchObject({ status: 'completed' });
    const forkItems = (await store.list('flow_runs', 'r2-fork')).filter((r) => r.key.startsWith('item:'));
    expect(forkItems).toHaveLength(6);
    // A fork after the map keeps its step record, not its item records: nothing of it runs again.
    const after = await flow.fork('r2', { at: 'summaries', id: 'r2-after' });
    expect(after.outputs.summaries).toEqual(out.outputs.summaries);
    expect(calls.get('a')).toBe(2);
    expect((await store.list('flow_runs', 'r2-after')).filter((r) => r.key.startsWith('item:'))).toEqual([]);
    // Pruning the run deletes its item records with it.
    await store.prune({ olderThan: Date.now() + 60_000, statuses: ['completed'] });
    expect(await store.list('flow_runs', 'r2')).toEqual([]);
  });
});
