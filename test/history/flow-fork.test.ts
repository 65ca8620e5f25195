import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent, and, Crew, createFlow, MemoryStore, Task } from '../../src/index.js';
import { codeOf } from '../store-helpers.js';

/** Counts each step's calls, by step name. */
function counter() {
  const calls: Record<string, number> = {};
  const count = (step: string) => {
    calls[step] = (calls[step] ?? 0) + 1;
  };
  return { calls, count };
}

/** draft → grade (router: approve | revise) → publish | rework; every step counted. */
function reviewFlow(store: MemoryStore, label: 'approve' | 'revise' = 'approve') {
  const { calls, count } = counter();
  const flow = createFlow({ name: 'review', store, initialState: { score: 0, log: [] as string[] } })
    .start('draft', ({ state }) => {
      count('draft');
      state.log.push('draft');
      return 'v1';
    })
    .router(
      'grade',
      'draft',
      ({ state }) => {
        count('grade');
        state.score = 9;
        return label;
      },
      { routes: ['approve', 'revise'] },
    )
    .listen('publish', 'approve', ({ state }) => {
      count('publish');
      state.log.push('publish');
      return `published ${state.score}`;
    })
    .listen('rework', 'revise', ({ state }) => {
      count('rework');
      state.log.push('rework');
      return `reworked ${state.score}`;
    });
  return { flow, calls };
}

/** ask (human: approve | reject) → ship | drop, after a prepare step. */
function approvalFlow(store: MemoryStore) {
  const { calls, count } = counter();
  const flow = createFlow({ name: 'approval', store, initialState: { amount: 10 } })
    .start('prepare', () => {
      count('prepare');
      return 'ready';
    })
    .human('ask', 'prepare', { routes: ['approve', 'reject'], prompt: 'Ship it?' })
    .listen('ship', 'approve', ({ payload }) => {
      count('ship');
      return { shipped: payload };
    })
    .listen('drop', 'reject', ({ payload }) => {
      count('drop');
      return { dropped: payload };
    });
  return { flow, calls };
}

describe('flow.history', () => {
  it("lists a run's step runs in commit order, one page at a time", async () => {
    const store = new MemoryStore();
    const { flow } = reviewFlow(store);
    await flow.kickoff({ inputs: { id: 'h-1' } });
    const all = await flow.history('h-1');
    expect(all).toMatchObject({ id: 'h-1', kind: 'flow', name: 'review', status: 'completed' });
    expect(all.checkpoints.map((c) => [c.seq, c.checkpoint, c.output])).toEqual([
      [1, 'draft', 'v1'],
      [2, 'grade', 'approve'],
      [3, 'publish', 'published 9'],
    ]);
    const page = await flow.history('h-1', { after: 1, limit: 1 });
    expect(page.checkpoints.map((c) => c.checkpoint)).toEqual(['grade']);
    expect(page.next).toBe(2);
  });

  it('refuses another flow’s run, a crew’s run, an unknown run and a flow without a store', async () => {
    const store = new MemoryStore();
    await reviewFlow(store).flow.kickoff({ inputs: { id: 'r-1' } });
    const other = createFlow({ name: 'other', store, initialState: {} }).start('s', () => 1);
    expect(await codeOf(other.history('r-1'))).toBe('flow_mismatch');
    expect(await codeOf(other.fork('r-1', { at: 's' }))).toBe('flow_mismatch');
    const writer = new Agent({ role: 'W', goal: 'g', backstory: 'b', llm: () => 'text' });
    const task = new Task({ name: 't', description: 'd', expectedOutput: 'e', agent: writer });
    await new Crew({ name: 'pair', agents: [writer], tasks: [task], store }).kickoff({ executionId: 'c-1' });
    expect(await codeOf(other.history('c-1'))).toBe('flow_mismatch');
    expect(await codeOf(other.history('nothing'))).toBe('run_not_found');
    expect(await codeOf(other.fork('nothing', { at: 's' }))).toBe('run_not_found');
    const unstored = createFlow({ name: 'review', initialState: {} }).start('s', () => 1);
    expect(await codeOf(unstored.history('r-1'))).toBe('store_required');
    expect(await codeOf(unstored.fork('r-1', { at: 'draft' }))).toBe('store_required');
  });
});

describe('flow.fork', () => {
  it('takes the other branch at a router given another label; kept steps do not run again', async () => {
    const store = new MemoryStore();
    const { flow, calls } = reviewFlow(store);
    await flow.kickoff({ inputs: { id: 'src' } });
    expect(calls).toEqual({ draft: 1, grade: 1, publish: 1 });
    const out = await flow.fork('src', { at: 'grade', outputs: { grade: 'revise' }, id: 'fork-1' });
    expect(calls).toEqual({ draft: 1, grade: 1, publish: 1, rework: 1 });
    expect(out).toMatchObject({ id: 'fork-1', status: 'completed', output: 'reworked 9' });
    expect(out.trail).toEqual(['draft', 'grade', 'rework']);
    expect(out.state.log).toEqual(['draft', 'rework']);
    expect(out.forkedFrom).toEqual({ runId: 'src', checkpoint: 'grade' });
    expect((await flow.getRun('fork-1'))?.forkedFrom).toEqual({ runId: 'src', checkpoint: 'grade' });
    expect((await flow.getRun('src'))?.forkedFrom).toBeUndefined();
    const history = await flow.history('fork-1');
    expect(history.forkedFrom).toEqual({ runId: 'src', checkpoint: 'grade' });
    expect(history.checkpoints.map((c) => [c.seq, c.checkpoint, c.output])).toEqual([
      [1, 'draft', 'v1'],
      [2, 'grade', 'revise'],
      [3, 'rework', 'reworked 9'],
    ]);
    // The source is unchanged.
    const source = await flow.history('src');
    expect(source.checkpoints.map((c) => c.output)).toEqual(['v1', 'approve', 'published 9']);
  });

  it('forks at a seq, and by default runs on from the checkpoint with a new id', async () => {
    const store = new MemoryStore();
    const { flow, calls } = reviewFlow(store);
    await flow.kickoff({ inputs: { id: 'src' } });
    const out = await flow.fork('src', { at: 1 });
    expect(out.id).not.toBe('src');
    expect(out.forkedFrom).toEqual({ runId: 'src', checkpoint: 'draft' });
    expect(out.trail).toEqual(['draft', 'grade', 'publish']);
    expect(calls).toEqual({ draft: 1, grade: 2, publish: 2 });
  });

  it('answers a human step again: a run answered approve, forked at the human with reject', async () => {
    const store = new MemoryStore();
    const { flow, calls } = approvalFlow(store);
    const paused = await flow.kickoff({ inputs: { id: 'ask-1' } });
    expect(paused.status).toBe('paused');
    const approved = await flow.resume('ask-1', { route: 'approve', feedback: 'fine' });
    expect(approved.trail).toEqual(['prepare', 'ask', 'ship']);
    const rejected = await flow.fork('ask-1', {
      at: 'ask',
      outputs: { ask: { route: 'reject', feedback: 'no' } },
    });
    expect(rejected.status).toBe('completed');
    expect(rejected.trail).toEqual(['prepare', 'ask', 'drop']);
    expect(rejected.output).toEqual({ dropped: { route: 'reject', feedback: 'no' } });
    // A route label alone is the answer without feedback.
    const plain = await flow.fork('ask-1', { at: 'ask', outputs: { ask: 'reject' } });
    expect(plain.output).toEqual({ dropped: { route: 'reject' } });
    expect(calls).toEqual({ prepare: 1, ship: 1, drop: 2 });
    expect(await codeOf(flow.fork('ask-1', { at: 'ask', outputs: { ask: 'maybe' } }))).toBe('invalid_option');
  });

  it('patches the state, or makes it with a function of a copy, then merges inputs over it', async () => {
    const store = new MemoryStore();
    const { flow } = reviewFlow(store);
    await flow.kickoff({ inputs: { id: 'src' } });
    const patched = await flow.fork('src', { at: 'grade', state: { score: 3 } });
    expect(patched.output).toBe('published 3');
    let seen: unknown;
    const made = await flow.fork('src', {
      at: 'grade',
      state: (state) => {
        seen = state;
        state.log.push('edited');
        return { ...state, score: 5 };
      },
      inputs: { score: 6 },
    });
    expect(made.output).toBe('published 6');
    expect(made.state.log).toEqual(['draft', 'edited', 'publish']);
    expect(made.state.id).toBe(made.id);
    expect((seen as { id: string }).id).toBe('src');
    // The function got a copy: the source's stored state is as it was.
    const source = await flow.history('src');
    expect(source.checkpoints[1]?.state).toMatchObject({ log: ['draft'] });
  });

  it('runs on with an edited earlier output that a later step reads', async () => {
    const store = new MemoryStore();
    const { calls, count } = counter();
    const flow = createFlow({ name: 'chain', store, initialState: {} })
      .start('fetch', () => {
        count('fetch');
        return { price: 10 };
      })
      .listen('tax', 'fetch', () => {
        count('tax');
        return 0.2;
      })
      .listen('total', 'tax', ({ outputs, payload }) => {
        count('total');
        return (outputs.fetch as { price: number }).price * (1 + (payload as number));
      });
    await flow.kickoff({ inputs: { id: 'src' } });
    const out = await flow.fork('src', { at: 'tax', outputs: { fetch: { price: 100 } } });
    expect(out.output).toBe(120);
    expect(out.outputs.fetch).toEqual({ price: 100 });
    expect(calls).toEqual({ fetch: 1, tax: 1, total: 2 });
    const history = await flow.history(out.id);
    expect(history.checkpoints.map((c) => c.output)).toEqual([{ price: 100 }, 0.2, 120]);
  });

  it('refuses an unknown checkpoint, outputs it cannot apply, a taken id and a state its schema refuses', async () => {
    const store = new MemoryStore();
    const { flow } = reviewFlow(store);
    await flow.kickoff({ inputs: { id: 'src' } });
    expect(await codeOf(flow.fork('src', { at: 'nope' }))).toBe('checkpoint_not_found');
    expect(await codeOf(flow.fork('src', { at: undefined as never }))).toBe('invalid_option');
    expect(await codeOf(flow.fork('src', { at: 4 }))).toBe('checkpoint_not_found');
    expect(await codeOf(flow.fork('src', { at: 'rework' }))).toBe('checkpoint_not_found');
    const later = flow.fork('src', { at: 'draft', outputs: { publish: 'x' } });
    await expect(later).rejects.toMatchObject({
      code: 'invalid_option',
      message: /ran after checkpoint "draft"/,
    });
    expect(await codeOf(flow.fork('src', { at: 'grade', outputs: { nothing: 1 } }))).toBe('invalid_option');
    expect(await codeOf(flow.fork('src', { at: 'grade', outputs: { grade: 'maybe' } }))).toBe(
      'invalid_option',
    );
    const earlier = flow.fork('src', { at: 'publish', outputs: { grade: 'revise' } });
    await expect(earlier).rejects.toMatchObject({ code: 'invalid_option', message: /fork at "grade"/ });
    expect(await codeOf(flow.fork('src', { at: 'grade', id: 'src' }))).toBe('run_exists');
    expect(await codeOf(flow.fork('src', { at: 'grade', state: (() => 3) as never }))).toBe('invalid_option');

    const typed = createFlow({ name: 'typed', store, state: z.object({ n: z.number() }) })
      .start('one', ({ state }) => {
        state.n += 1;
      })
      .listen('two', 'one', ({ state }) => state.n);
    await typed.kickoff({ inputs: { id: 't-1', n: 1 } });
    expect(await codeOf(typed.fork('t-1', { at: 'one', state: { n: 'many' as never } }))).toBe(
      'invalid_state',
    );
    expect((await typed.fork('t-1', { at: 'one', state: { n: 40 } })).output).toBe(40);
  });

  it('runs again the step runs of the checkpoint’s round committed after it', async () => {
    const store = new MemoryStore();
    const { calls, count } = counter();
    const flow = createFlow({ name: 'pair', store, initialState: { n: 0 } })
      .start('a', ({ state }) => {
        count('a');
        state.n += 1;
        return 'a';
      })
      .start('b', ({ state }) => {
        count('b');
        state.n += 10;
        return 'b';
      })
      .listen('c', and('a', 'b'), ({ state }) => {
        count('c');
        return state.n;
      });
    await flow.kickoff({ inputs: { id: 'src' } });
    const order = (await flow.history('src')).checkpoints.map((c) => c.checkpoint);
    expect(order).toEqual(['a', 'b', 'c']);
    const out = await flow.fork('src', { at: 'a', state: { n: 100 } });
    expect(out.output).toBe(110);
    expect(out.trail).toEqual(['a', 'b', 'c']);
    expect(calls).toEqual({ a: 1, b: 2, c: 2 });
  });

  it('makes two runs of two forks at once, each with its own id and history', async () => {
    const store = new MemoryStore();
    const { flow, calls } = reviewFlow(store);
    await flow.kickoff({ inputs: { id: 'src' } });
    const [a, b] = await Promise.all([
      flow.fork('src', { at: 'grade', outputs: { grade: 'revise' } }),
      flow.fork('src', { at: 'grade', state: { score: 1 } }),
    ]);
    expect(a.id).not.toBe(b.id);
    expect([a.output, b.output]).toEqual(['reworked 9', 'published 1']);
    const [ha, hb] = await Promise.all([flow.history(a.id), flow.history(b.id)]);
    expect(ha.checkpoints.map((c) => c.checkpoint)).toEqual(['draft', 'grade', 'rework']);
    expect(hb.checkpoints.map((c) => c.checkpoint)).toEqual(['draft', 'grade', 'publish']);
    expect(calls).toEqual({ draft: 1, grade: 1, publish: 2, rework: 1 });
  });

  it('forks a run still running with only its committed checkpoints', async () => {
    const store = new MemoryStore();
    const { calls, count } = counter();
    let release: (value: string) => void = () => {};
    let started: () => void = () => {};
    const blocked = new Promise<void>((resolve) => {
      started = resolve;
    });
    let first = true;
    const flow = createFlow({ name: 'slow', store, initialState: {} })
      .start('one', () => {
        count('one');
        return 1;
      })
      .listen('two', 'one', () => {
        count('two');
        if (!first) return 'fast';
        first = false;
        started();
        return new Promise<string>((resolve) => {
          release = resolve;
        });
      })
      .listen('three', 'two', ({ payload }) => {
        count('three');
        return `after ${String(payload)}`;
      });
    const source = flow.kickoff({ inputs: { id: 'live' } });
    await blocked;
    expect(await codeOf(flow.fork('live', { at: 'two' }))).toBe('checkpoint_not_found');
    const fork = await flow.fork('live', { at: 'one', id: 'from-live' });
    expect(fork.trail).toEqual(['one', 'two', 'three']);
    expect(fork.output).toBe('after fast');
    release('slow');
    expect((await source).output).toBe('after slow');
    expect(calls).toEqual({ one: 1, two: 2, three: 2 });
  });

  it('resumes a fork that paused, and forks a fork', async () => {
    const store = new MemoryStore();
    const { flow, calls } = approvalFlow(store);
    await flow.kickoff({ inputs: { id: 'p-1' } });
    await flow.resume('p-1', { route: 'approve' });
    const paused = await flow.fork('p-1', { at: 'prepare', id: 'p-2' });
    expect(paused).toMatchObject({ status: 'paused', forkedFrom: { runId: 'p-1', checkpoint: 'prepare' } });
    const resumed = await flow.resume('p-2', { route: 'reject' });
    expect(resumed).toMatchObject({
      status: 'completed',
      forkedFrom: { runId: 'p-1', checkpoint: 'prepare' },
    });
    expect(resumed.trail).toEqual(['prepare', 'ask', 'drop']);
    const again = await flow.fork('p-2', { at: 'ask', outputs: { ask: 'approve' }, id: 'p-3' });
    expect(again.trail).toEqual(['prepare', 'ask', 'ship']);
    expect((await flow.history('p-3')).checkpoints.map((c) => c.seq)).toEqual([1, 2, 3]);
    expect(calls).toEqual({ prepare: 1, ship: 2, drop: 1 });
  });
});
