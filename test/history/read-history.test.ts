import { describe, expect, it } from 'vitest';
import { Agent, Crew, createFlow, diffRuns, MemoryStore, readHistory, Task } from '../../src/index.js';
import { codeOf } from '../store-helpers.js';

function twoTaskCrew(store: MemoryStore, replies: string[]): Crew {
  let call = 0;
  const llm = () => replies[call++] ?? 'spare';
  const writer = new Agent({ role: 'Writer', goal: 'write', backstory: 'b', llm });
  const tasks = [
    new Task({ name: 'draft', description: 'Draft', expectedOutput: 'text', agent: writer }),
    new Task({ name: 'polish', description: 'Polish', expectedOutput: 'text', agent: writer }),
  ];
  return new Crew({ name: 'pair', agents: [writer], tasks, store });
}

function counterFlow(store: MemoryStore) {
  return createFlow({ name: 'counter', store, initialState: { n: 0 } })
    .start('one', ({ state }) => {
      state.n += 1;
      return 'a';
    })
    .listen('two', 'one', ({ state }) => {
      state.n += 10;
      return { doubled: state.n * 2 };
    });
}

describe('readHistory', () => {
  it("lists a flow run's step runs in commit order, each with its output and the state it left", async () => {
    const store = new MemoryStore();
    await counterFlow(store).kickoff({ inputs: { id: 'f-1' } });
    const history = await readHistory(store, 'f-1');
    expect(history).toMatchObject({ id: 'f-1', kind: 'flow', name: 'counter', status: 'completed' });
    expect(history.checkpoints.map((c) => [c.seq, c.checkpoint, c.kind, c.status, c.output])).toEqual([
      [1, 'one', 'step', 'completed', 'a'],
      [2, 'two', 'step', 'completed', { doubled: 22 }],
    ]);
    expect(history.checkpoints.map((c) => (c.state as { n: number }).n)).toEqual([1, 11]);
    expect(history.next).toBeUndefined();
  });

  it("lists a crew run's task runs with their raw text, one page at a time", async () => {
    const store = new MemoryStore();
    await twoTaskCrew(store, ['first', 'second']).kickoff({ executionId: 'c-1' });
    const first = await readHistory(store, 'c-1', { limit: 1 });
    expect(first).toMatchObject({ kind: 'crew', name: 'pair', status: 'completed', next: 1 });
    expect(first.checkpoints.map((c) => [c.checkpoint, c.kind, c.output])).toEqual([
      ['draft', 'task', 'first'],
    ]);
    const second = await readHistory(store, 'c-1', { after: first.next, limit: 1 });
    expect(second.checkpoints.map((c) => [c.seq, c.checkpoint, c.output])).toEqual([[2, 'polish', 'second']]);
    expect(second.next).toBeUndefined();
  });

  it('refuses an unknown run and bad page options with coded errors', async () => {
    const store = new MemoryStore();
    expect(await codeOf(readHistory(store, 'nothing-here'))).toBe('run_not_found');
    expect(await codeOf(readHistory(store, 'x', { limit: 0 }))).toBe('invalid_option');
    expect(await codeOf(readHistory(store, 'x', { after: -1 }))).toBe('invalid_option');
  });
});

describe('diffRuns', () => {
  it('tells the nodes whose output differs, and nothing for two runs alike', async () => {
    const store = new MemoryStore();
    await twoTaskCrew(store, ['first', 'second']).kickoff({ executionId: 'a' });
    await twoTaskCrew(store, ['first', 'other']).kickoff({ executionId: 'b' });
    await twoTaskCrew(store, ['first', 'second']).kickoff({ executionId: 'c' });
    const [a, b, c] = await Promise.all(['a', 'b', 'c'].map((id) => readHistory(store, id)));
    const diff = diffRuns(a as never, b as never);
    expect(diff.same).toBe(false);
    expect(diff.path).toEqual({ a: ['draft', 'polish'], b: ['draft', 'polish'], same: true });
    expect(diff.nodes.map((n) => [n.nodeId, n.change, n.fields])).toEqual([
      ['polish', 'changed', ['output']],
    ]);
    expect(diffRuns(a as never, c as never)).toMatchObject({ same: true, nodes: [] });
  });

  it('tells where two paths part, and the nodes only one run has', () => {
    const node = (nodeId: string, seq: number) => ({
      checkpoint: nodeId,
      seq,
      nodeId,
      kind: 'step' as const,
      name: nodeId,
      at: 0,
      status: 'completed' as const,
      output: null,
    });
    const a = {
      id: 'a',
      kind: 'flow' as const,
      name: 'f',
      status: 'completed',
      checkpoints: [node('x', 1), node('yes', 2)],
    };
    const b = {
      id: 'b',
      kind: 'flow' as const,
      name: 'f',
      status: 'completed',
      checkpoints: [node('x', 1), node('no', 2)],
    };
    const diff = diffRuns(a, b);
    expect(diff.path).toMatchObject({ same: false, divergesAt: 1 });
    expect(diff.nodes.map((n) => [n.nodeId, n.change])).toEqual([
      ['yes', 'removed'],
      ['no', 'added'],
    ]);
    expect(() => diffRuns(a, { ...b, next: 1 })).toThrow(/whole history/);
  });
});

describe('createFlow state', () => {
  it('refuses a state that is not a zod schema, pointing at initialState', () => {
    expect(() => createFlow({ name: 'f', state: { n: 0 } as never })).toThrow(/state.*initialState/s);
  });
});
