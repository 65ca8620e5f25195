import { describe, expect, it } from 'vitest';
import { Agent, Crew, createFlow, MemoryStore, type Store, Task } from '../../src/index.js';
import { encodeRunValue } from '../../src/runtime/durable/codec.js';
import { createScriptedModel } from '../../src/testing.js';
import { codeOf } from '../store-helpers.js';

/**
 * What a fork's process leaves when it stops between claiming the fork's id and writing the
 * checkpoints the fork keeps (its first commit): a head naming its source, and no records.
 */
async function headOnlyFork(store: Store, kind: 'crew' | 'flow', name: string, source: string, at: string) {
  const now = Date.now();
  const data = { inputs: encodeRunValue({ id: 'fork-1' }), forkedFrom: { runId: source, checkpoint: at } };
  await store.createRun({
    id: 'fork-1',
    kind,
    name,
    status: 'running',
    version: 1,
    lease: null,
    data,
    createdAt: now,
    updatedAt: now,
  });
}

describe('a fork whose kept checkpoints were never written', () => {
  it('is refused by a flow resume (corrupt_snapshot, left failed) rather than run as a fresh run', async () => {
    const store = new MemoryStore();
    let runs = 0;
    const flow = createFlow({ name: 'pair', store, initialState: {} })
      .start('a', () => {
        runs += 1;
        return 'a';
      })
      .listen('b', 'a', () => 'b');
    await flow.kickoff({ inputs: { id: 'source' } });
    await headOnlyFork(store, 'flow', 'pair', 'source', 'a');
    runs = 0;
    const error = await flow.resume('fork-1').catch((e: Error) => e);
    expect(error).toMatchObject({ code: 'corrupt_snapshot' });
    expect(String(error)).toMatch(
      /fork of run "source" at "a" whose kept checkpoints were never written.*fork the source again/,
    );
    expect(runs).toBe(0);
    expect((await store.readRun('fork-1'))?.status).toBe('failed');
  });

  it('is refused by a crew resume (corrupt_snapshot, left failed), calling no model', async () => {
    const store = new MemoryStore();
    const llm = createScriptedModel(() => 'text');
    const writer = new Agent({ role: 'Writer', llm });
    const tasks = [
      new Task({ name: 't1', description: 'One', agent: writer }),
      new Task({ name: 't2', description: 'Two', agent: writer }),
    ];
    const crew = new Crew({ name: 'pair', tasks, store });
    await crew.kickoff({ executionId: 'source' });
    await headOnlyFork(store, 'crew', 'pair', 'source', 't2');
    const before = llm.calls.length;
    expect(await codeOf(crew.resume('fork-1'))).toBe('corrupt_snapshot');
    expect(llm.calls.length).toBe(before);
    expect((await store.readRun('fork-1'))?.status).toBe('failed');
  });
});
