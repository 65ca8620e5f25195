import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  Agent,
  Crew,
  createFlow,
  defineTool,
  MemoryStore,
  type ModelRequest,
  readHistory,
  Task,
} from '../../src/index.js';
import { createScriptedModel, type ScriptedModel } from '../../src/testing.js';
import { codeOf } from '../store-helpers.js';

/** The task a model call was for: its `Task:` line's first word. */
const taskOf = (request: Pick<ModelRequest, 'prompt'>) =>
  (request.prompt.split('\n').find((line) => line.startsWith('Task: ')) ?? '').slice(6).split(' ')[0] ?? '';

/** A model answering `<task> done (<n>)`, counting each task's calls; a task in `failing` throws. */
function writerModel(failing: ReadonlySet<string> = new Set()): ScriptedModel {
  return createScriptedModel((request) => {
    const task = taskOf(request);
    if (failing.has(task)) return new Error(`${task} broke`);
    return `${task} done`;
  });
}

const asked = (model: ScriptedModel) => model.calls.map(taskOf);
const contextOf = (model: ScriptedModel, task: string) =>
  model.calls.find((c) => taskOf(c) === task)?.context;

/** Four tasks in a sequence, each on `{topic}`; `t2` may have an output schema. */
function fourTasks(store: MemoryStore | undefined, llm: ScriptedModel, schema?: z.ZodType): Crew {
  const writer = new Agent({ role: 'Writer', llm, maxRetries: 0 });
  const tasks = ['t1', 't2', 't3', 't4'].map(
    (name) =>
      new Task({
        name,
        description: `${name} on {topic}`,
        agent: writer,
        ...(name === 't2' && schema !== undefined ? { outputSchema: schema } : {}),
      }),
  );
  return new Crew({ name: 'four', tasks, ...(store === undefined ? {} : { store }) });
}

describe('crew.fork', () => {
  it('keeps the tasks up to the checkpoint with an edited output: only the later tasks call the model, and read the edit', async () => {
    const store = new MemoryStore();
    await fourTasks(store, writerModel()).kickoff({ executionId: 'src', inputs: { topic: 'AI' } });
    const model = writerModel();
    const out = await fourTasks(store, model).fork('src', {
      at: 't2',
      outputs: { t2: 'an EDITED second output' },
      id: 'fork-1',
    });
    expect(out.status).toBe('completed');
    expect(asked(model)).toEqual(['t3', 't4']);
    expect(contextOf(model, 't3')).toContain('an EDITED second output');
    // The source's inputs, kept in its head.
    expect(model.calls[0]?.prompt).toContain('t3 on AI');
    expect(out.tasksOutput.map((t) => t.raw)).toEqual([
      't1 done',
      'an EDITED second output',
      't3 done',
      't4 done',
    ]);
    expect(out.metadata).toMatchObject({
      executionId: 'fork-1',
      restored: ['t1', 't2'],
      forkedFrom: { runId: 'src', checkpoint: 't2' },
    });
    const history = await fourTasks(store, model).history('fork-1');
    expect(history.forkedFrom).toEqual({ runId: 'src', checkpoint: 't2' });
    expect(history.checkpoints.map((c) => [c.seq, c.nodeId, c.output])).toEqual([
      [1, 't1', 't1 done'],
      [2, 't2', 'an EDITED second output'],
      [3, 't3', 't3 done'],
      [4, 't4', 't4 done'],
    ]);
    expect((await store.readRun('fork-1'))?.data).toMatchObject({
      forkedFrom: { runId: 'src', checkpoint: 't2' },
    });
  });

  it('forks at a seq, and forks a fork: the fork’s records start with what it kept', async () => {
    const store = new MemoryStore();
    await fourTasks(store, writerModel()).kickoff({ executionId: 'src', inputs: { topic: 'AI' } });
    await fourTasks(store, writerModel()).fork('src', { at: 2, outputs: { t1: 'FIRST' }, id: 'f1' });
    const model = writerModel();
    const out = await fourTasks(store, model).fork('f1', { at: 3, id: 'f2', inputs: { topic: 'ML' } });
    expect(asked(model)).toEqual(['t4']);
    expect(model.calls[0]?.prompt).toContain('t4 on ML');
    expect(out.metadata.restored).toEqual(['t1', 't2', 't3']);
    expect(out.metadata.forkedFrom).toEqual({ runId: 'f1', checkpoint: 't3' });
    expect(out.tasksOutput[0]?.raw).toBe('FIRST');
  });

  it('resumes a fork that failed: its kept results are its own records', async () => {
    const store = new MemoryStore();
    await fourTasks(store, writerModel()).kickoff({ executionId: 'src', inputs: { topic: 'AI' } });
    const broken = await fourTasks(store, writerModel(new Set(['t4']))).fork('src', {
      at: 't2',
      outputs: { t2: 'EDITED' },
      id: 'fork',
    });
    expect(broken.status).not.toBe('completed');
    const model = writerModel();
    const out = await fourTasks(store, model).resume('fork');
    expect(asked(model)).toEqual(['t4']);
    expect(out.status).toBe('completed');
    expect(out.metadata.restored).toEqual(['t1', 't2', 't3']);
    expect(out.tasksOutput[1]?.raw).toBe('EDITED');
    expect((await readHistory(store, 'fork')).checkpoints.map((c) => [c.seq, c.nodeId, c.status])).toEqual([
      [1, 't1', 'completed'],
      [2, 't2', 'completed'],
      [3, 't3', 'completed'],
      [4, 't4', 'completed'],
    ]);
  });

  it('runs a failed checkpoint again, keeping everything before it', async () => {
    const store = new MemoryStore();
    const broken = await fourTasks(store, writerModel(new Set(['t3']))).kickoff({
      executionId: 'src',
      inputs: { topic: 'AI' },
    });
    expect(broken.status).not.toBe('completed');
    const model = writerModel();
    const out = await fourTasks(store, model).fork('src', { at: 't3' });
    expect(asked(model)).toEqual(['t3', 't4']);
    expect(out.status).toBe('completed');
    expect(out.metadata.restored).toEqual(['t1', 't2']);
    expect(out.metadata.forkedFrom).toEqual({ runId: 'src', checkpoint: 't3' });
  });

  it('runs a paused checkpoint again: the fork waits for its own answer', async () => {
    const store = new MemoryStore();
    const pay = defineTool({
      name: 'pay',
      description: 'Pay',
      input: z.object({}),
      needsApproval: true,
      execute: () => 'paid',
    });
    const model = () =>
      createScriptedModel((request) => {
        const task = taskOf(request);
        const asked = request.messages.some((m) => m.role === 'tool');
        if (task === 'pay' && !asked) return { text: '', toolCalls: [{ id: 'c1', name: 'pay', args: {} }] };
        return `${task} done`;
      });
    const crew = (llm: ScriptedModel) => {
      const clerk = new Agent({ role: 'Clerk', llm, tools: [pay] });
      const tasks = ['prep', 'pay', 'report'].map(
        (name) => new Task({ name, description: name, agent: clerk }),
      );
      return new Crew({ name: 'paying', tasks, store });
    };
    const source = await crew(model()).kickoff({ executionId: 'src' });
    expect(source.status).toBe('paused');
    expect((await readHistory(store, 'src')).checkpoints.map((c) => [c.nodeId, c.status])).toEqual([
      ['prep', 'completed'],
      ['pay', 'paused'],
    ]);
    const forkModel = model();
    const out = await crew(forkModel).fork('src', { at: 'pay', id: 'fork' });
    expect(asked(forkModel)).toEqual(['pay']);
    expect(out.status).toBe('paused');
    expect(out.pending?.map((p) => p.nodeId)).toEqual(['pay']);
    expect(out.metadata.restored).toEqual(['prep']);
    const [call] = out.pending ?? [];
    if (call?.kind !== 'approval') throw new Error('expected an approval');
    const answered = await crew(forkModel).resume('fork', {
      approvals: { [call.callId]: { approve: true } },
    });
    expect(answered.status).toBe('completed');
    expect(asked(forkModel)).toEqual(['pay', 'pay', 'report']);
  });

  it('parses an edited output as the task’s structured output, and refuses one that does not fit', async () => {
    const schema = z.object({ score: z.number() });
    const store = new MemoryStore();
    const first = createScriptedModel((request) => (taskOf(request) === 't2' ? '{"score":1}' : 'text'));
    await fourTasks(store, first, schema).kickoff({ executionId: 'src', inputs: { topic: 'AI' } });
    const crew = (model: ScriptedModel) => fourTasks(store, model, schema);
    const fromText = await crew(writerModel()).fork('src', { at: 't2', outputs: { t2: '{"score":5}' } });
    expect(fromText.tasksOutput[1]).toMatchObject({ raw: '{"score":5}', structured: { score: 5 } });
    const model = writerModel();
    const fromValue = await crew(model).fork('src', { at: 't2', outputs: { t2: { score: 7 } } });
    expect(fromValue.tasksOutput[1]).toMatchObject({ raw: '{"score":7}', structured: { score: 7 } });
    expect(contextOf(model, 't3')).toContain('{"score":7}');
    const bad = crew(writerModel()).fork('src', { at: 't2', outputs: { t2: '{"score":"high"}' } });
    await expect(bad).rejects.toMatchObject({
      code: 'invalid_option',
      message: expect.stringContaining('outputs.t2'),
    });
    const notJson = crew(writerModel()).fork('src', { at: 't2', outputs: { t2: 'five' } });
    await expect(notJson).rejects.toMatchObject({ code: 'invalid_option' });
    const badValue = crew(writerModel()).fork('src', { at: 't2', outputs: { t2: { score: 'x' } } });
    await expect(badValue).rejects.toMatchObject({
      code: 'invalid_option',
      message: expect.stringContaining('outputs.t2'),
    });
  });

  it('refuses bad forks with coded errors, before any model call', async () => {
    const store = new MemoryStore();
    await fourTasks(store, writerModel()).kickoff({ executionId: 'src', inputs: { topic: 'AI' } });
    await createFlow({ name: 'f', store, initialState: {} })
      .start('one', () => 'x')
      .kickoff({ inputs: { id: 'a-flow' } });
    await new Crew({
      name: 'other',
      tasks: [new Task({ name: 'x', description: 'x', agent: new Agent({ role: 'W', llm: writerModel() }) })],
      store,
    }).kickoff({ executionId: 'other-run' });
    const model = writerModel();
    const crew = fourTasks(store, model);
    const unknown = crew.fork('src', { at: 'nope' });
    await expect(unknown).rejects.toMatchObject({ code: 'checkpoint_not_found' });
    await expect(unknown).rejects.toThrow(/t1, t2, t3, t4/);
    expect(await codeOf(crew.fork('src', { at: 5 }))).toBe('checkpoint_not_found');
    expect(await codeOf(crew.fork('src', { at: 0 }))).toBe('invalid_option');
    const later = crew.fork('src', { at: 't2', outputs: { t3: 'later' } });
    await expect(later).rejects.toMatchObject({
      code: 'invalid_option',
      message: expect.stringContaining('outputs.t3'),
    });
    expect(await codeOf(crew.fork('src', { at: 't2', outputs: { zz: 'x' } }))).toBe('invalid_option');
    const state = crew.fork('src', { at: 't2', state: { n: 1 } } as never);
    await expect(state).rejects.toMatchObject({
      code: 'invalid_option',
      message: expect.stringContaining('state'),
    });
    expect(await codeOf(crew.fork('nothing', { at: 't1' }))).toBe('run_not_found');
    await expect(crew.fork('a-flow', { at: 'one' })).rejects.toThrow(/flow "f"/);
    await expect(crew.fork('other-run', { at: 'x' })).rejects.toThrow(/crew "other"/);
    expect(await codeOf(crew.fork('src', { at: 't1', id: 'src' }))).toBe('run_exists');
    expect(await codeOf(fourTasks(undefined, model).fork('src', { at: 't1' }))).toBe('store_required');
    expect(model.calls).toHaveLength(0);
  });

  it('makes two runs of two forks at once', async () => {
    const store = new MemoryStore();
    await fourTasks(store, writerModel()).kickoff({ executionId: 'src', inputs: { topic: 'AI' } });
    const model = writerModel();
    const crew = fourTasks(store, model);
    const [a, b] = await Promise.all([
      crew.fork('src', { at: 't3', outputs: { t3: 'A' } }),
      crew.fork('src', { at: 't3', outputs: { t3: 'B' } }),
    ]);
    expect(a.metadata.executionId).not.toBe(b.metadata.executionId);
    expect(asked(model)).toEqual(['t4', 't4']);
    const histories = await Promise.all([a, b].map((out) => readHistory(store, out.metadata.executionId)));
    expect(histories.map((h) => h.checkpoints.map((c) => c.output)[2])).toEqual(['A', 'B']);
  });

  it('keeps a parallel crew’s tasks in commit order, not list order', async () => {
    const store = new MemoryStore();
    // c settles first, then b, then a: the reverse of the list.
    const gates = new Map<string, { open: () => void; opened: Promise<void> }>();
    for (const name of ['a', 'b']) {
      let open: () => void = () => {};
      const opened = new Promise<void>((resolve) => {
        open = resolve;
      });
      gates.set(name, { open, opened });
    }
    const held = createScriptedModel(async (request) => {
      const task = taskOf(request);
      await gates.get(task)?.opened;
      return `${task} done`;
    });
    const crew = (llm: ScriptedModel) =>
      new Crew({
        name: 'fan',
        tasks: ['a', 'b', 'c'].map(
          (name) => new Task({ name, description: name, agent: new Agent({ role: 'W', llm }) }),
        ),
        process: 'parallel',
        store,
      });
    const run = crew(held).run({ executionId: 'src' });
    run.events$.subscribe((event) => {
      if (event.type === 'node.completed' && event.nodeId === 'c') gates.get('b')?.open();
      if (event.type === 'node.completed' && event.nodeId === 'b') gates.get('a')?.open();
    });
    await run.result;
    const source = (await readHistory(store, 'src')).checkpoints.map((c) => c.nodeId);
    expect(source).toEqual(['c', 'b', 'a']);
    const model = writerModel();
    const out = await crew(model).fork('src', { at: 'b', id: 'fan-fork' });
    expect(asked(model)).toEqual(['a']);
    expect(out.metadata.restored).toEqual(['c', 'b']);
    const forked = (await readHistory(store, 'fan-fork')).checkpoints.map((c) => c.nodeId);
    expect(forked).toEqual(['c', 'b', 'a']);
  });

  it('loop: a fork at write#2 keeps iteration 1 and write#2; the judge is asked only after the checkpoint', async () => {
    const store = new MemoryStore();
    const verdicts: string[] = [];
    const crew = (llm: ScriptedModel) =>
      new Crew({
        name: 'looped',
        tasks: ['draft', 'write'].map(
          (name) => new Task({ name, description: name, agent: new Agent({ role: 'W', llm }) }),
        ),
        process: 'loop',
        loop: {
          condition: 'good',
          maxIterations: 3,
          judge: (_prompt: string, context: string) => {
            verdicts.push(context);
            return verdicts.length >= 3 ? 'YES' : 'NO';
          },
        },
        store,
      });
    const source = await crew(writerModel()).kickoff({ executionId: 'src' });
    expect(source.metadata.iterations).toBe(3);
    expect(verdicts).toHaveLength(3);
    verdicts.length = 0;
    const model = writerModel();
    const out = await crew(model).fork('src', { at: 'draft#2', outputs: { 'write#1': 'W1 edited' } });
    // Kept: draft#1, write#1, draft#2; the judge's verdict on iteration 1 is not asked again.
    expect(out.metadata.restored).toEqual(['draft#1', 'write#1', 'draft#2']);
    expect(asked(model)).toEqual(['write', 'draft', 'write']);
    expect(verdicts).toHaveLength(2);
    expect(contextOf(model, 'write')).toContain('draft done');
    verdicts.length = 0;
    const atEnd = writerModel();
    const second = await crew(atEnd).fork('src', { at: 'write#2' });
    expect(second.metadata.restored).toEqual(['draft#1', 'write#1', 'draft#2', 'write#2']);
    // The judge reads iteration 2 (after the checkpoint), then iteration 3 runs.
    expect(asked(atEnd)).toEqual(['draft', 'write']);
    expect(verdicts).toHaveLength(2);
  });

  it('hierarchical: the manager is not asked to allocate the kept tasks again', async () => {
    const store = new MemoryStore();
    const allocated: string[] = [];
    const crew = (llm: ScriptedModel) =>
      new Crew({
        name: 'managed',
        agents: [new Agent({ role: 'Writer', llm })],
        tasks: ['h1', 'h2', 'h3'].map((name) => new Task({ name, description: name })),
        process: 'hierarchical',
        manager: {
          allocate: (description: string) => {
            allocated.push(description);
            return 'Writer';
          },
          synthesize: (_goal: string, outputs: string[]) => outputs.join(' + '),
        },
        store,
      });
    await crew(writerModel()).kickoff({ executionId: 'src' });
    expect(allocated).toEqual(['h1', 'h2', 'h3']);
    allocated.length = 0;
    const model = writerModel();
    const out = await crew(model).fork('src', { at: 'h2', outputs: { h2: 'H2!' } });
    expect(allocated).toEqual(['h3']);
    expect(asked(model)).toEqual(['h3']);
    expect(out.raw).toBe('h1 done + H2! + h3 done');
  });
});

describe('crew.history', () => {
  it('lists a run of the crew in commit order, one page at a time', async () => {
    const store = new MemoryStore();
    const crew = fourTasks(store, writerModel());
    await crew.kickoff({ executionId: 'src', inputs: { topic: 'AI' } });
    const all = await crew.history('src');
    expect(all).toMatchObject({ id: 'src', kind: 'crew', name: 'four', status: 'completed' });
    expect(all.checkpoints.map((c) => [c.seq, c.checkpoint, c.output])).toEqual([
      [1, 't1', 't1 done'],
      [2, 't2', 't2 done'],
      [3, 't3', 't3 done'],
      [4, 't4', 't4 done'],
    ]);
    const page = await crew.history('src', { after: 1, limit: 2 });
    expect(page.checkpoints.map((c) => c.seq)).toEqual([2, 3]);
    expect(page.next).toBe(3);
    const elsewhere = new MemoryStore();
    await fourTasks(undefined, writerModel()).kickoff({ executionId: 'there', store: elsewhere });
    expect(
      (await fourTasks(undefined, writerModel()).history('there', { store: elsewhere })).checkpoints,
    ).toHaveLength(4);
  });

  it('refuses another kind or crew’s run, an unknown one, bad pages and no store', async () => {
    const store = new MemoryStore();
    await createFlow({ name: 'f', store, initialState: {} })
      .start('one', () => 'x')
      .kickoff({ inputs: { id: 'a-flow' } });
    const crew = fourTasks(store, writerModel());
    await expect(crew.history('a-flow')).rejects.toMatchObject({
      code: 'run_not_found',
      message: expect.stringContaining('flow "f"'),
    });
    expect(await codeOf(crew.history('nothing'))).toBe('run_not_found');
    expect(await codeOf(crew.history('a-flow', { limit: 0 }))).toBe('invalid_option');
    expect(await codeOf(fourTasks(undefined, writerModel()).history('x'))).toBe('store_required');
  });
});
