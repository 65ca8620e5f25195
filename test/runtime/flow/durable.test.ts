import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createFlow, MemoryStore, or, SqliteStore, StatecrewError, type Store } from '../../../src/index.js';
import type { JsonValue } from '../../../src/stores/store.js';
import { GatedStore } from '../../store-helpers.js';

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** draft → review (a router that asks for at most two revisions) → revise → review … → publish. */
function reviewFlow(
  store: Store,
  ran: string[],
  fail: Set<string> = new Set(),
  name = 'review',
  abortAt?: { label: string; controller: AbortController },
) {
  const step =
    (label: string, body: () => unknown = () => label) =>
    () => {
      ran.push(label);
      if (abortAt?.label === label) {
        abortAt.controller.abort('shutdown');
        return new Promise(() => {});
      }
      if (fail.has(label)) {
        fail.delete(label);
        throw new StatecrewError('output_invalid', `${label} broke`, { retryable: false });
      }
      return body();
    };
  return createFlow({ name, initialState: { versions: [] as string[], reviews: 0 }, store })
    .start('draft', ({ state }) => {
      state.versions.push('v1');
      return step('draft', () => 'v1')();
    })
    .router(
      'review',
      or('draft', 'revise'),
      ({ state }) => {
        state.reviews += 1;
        return step(`review${state.reviews}`, () => (state.reviews < 3 ? 'changes' : 'ok'))() as
          | 'changes'
          | 'ok';
      },
      { routes: ['changes', 'ok'], maxRuns: 3 },
    )
    .listen(
      'revise',
      'changes',
      ({ state }) => {
        state.versions.push(`v${state.versions.length + 1}`);
        return step(`revise${state.versions.length}`)();
      },
      { maxRuns: 2 },
    )
    .listen('publish', 'ok', ({ state }) => step('publish', () => state.versions.at(-1))());
}

describe('a flow with a store', () => {
  it('commits each step as one record carrying its state and the round it ended, and the next round starts only once it landed', async () => {
    const store = new GatedStore();
    const ran: string[] = [];
    const run = reviewFlow(store, ran).run({ inputs: { id: 'r1' } });
    await store.whenCommits(1);
    expect(store.commits).toEqual([['flow_runs/run']]);
    expect(ran).toEqual([]); // nothing runs before the first header landed
    store.land();
    await store.whenCommits(2);
    expect(store.commits[1]).toEqual(['flow_runs/step:draft']);
    await nextTurn();
    expect(ran).toEqual(['draft']); // review waits until round 1 is stored
    store.land();
    await store.whenCommits(3);
    expect(ran).toEqual(['draft', 'review1']);
    expect((await store.get('flow_runs', 'r1', 'step:draft'))?.value).toMatchObject({
      step: 'draft',
      round: 1,
      mark: 2,
      state: expect.any(Array), // the state the step left, in the codec's form
      ended: { n: 1, steps: ['draft'], emitted: ['draft'] },
    });
    expect((await store.get('flow_runs', 'r1', 'run'))?.value).toMatchObject({ status: 'running', mark: 1 });
    for (let landed = 3; ; landed += 1) {
      store.land();
      const out = await Promise.race([run.result, store.whenCommits(landed + 1).then(() => undefined)]);
      if (out !== undefined) {
        expect(out.status).toBe('completed');
        break;
      }
    }
    // One commit per step, besides the first header and the last (which releases the lease).
    const steps = ['draft', 'review1', 'revise2', 'review2', 'revise3', 'review3', 'publish'];
    expect(ran).toEqual(steps);
    expect(store.commits).toHaveLength(steps.length + 2);
    expect((await store.get('flow_runs', 'r1', 'run'))?.value).toMatchObject({ status: 'completed' });
    expect(await store.readRun('r1')).toMatchObject({ status: 'completed', lease: null });
  });

  it('claims its id: a kickoff with an id the store holds is refused (run_exists) before any step', async () => {
    const store = new MemoryStore();
    const ran: string[] = [];
    await reviewFlow(store, ran).kickoff({ inputs: { id: 'same' } });
    ran.length = 0;
    await expect(reviewFlow(store, ran).kickoff({ inputs: { id: 'same' } })).rejects.toMatchObject({
      code: 'run_exists',
    });
    expect(ran).toEqual([]);
    // Aborted while its claim is on its way, a kickoff of a taken id leaves the stored run alone.
    const controller = new AbortController();
    const late = reviewFlow(store, ran).kickoff({ inputs: { id: 'same' }, signal: controller.signal });
    controller.abort('never mind');
    await expect(late).rejects.toMatchObject({ code: 'aborted' });
    await nextTurn();
    expect((await store.get('flow_runs', 'same', 'run'))?.value).toMatchObject({ status: 'completed' });
  });

  it('tells what it holds of a run (getRun)', async () => {
    const store = new MemoryStore();
    const flow = reviewFlow(store, []);
    const out = await flow.kickoff({ inputs: { id: 'g1' } });
    const info = await flow.getRun('g1');
    expect(info).toMatchObject({ id: 'g1', flow: 'review', status: 'completed', trail: out.trail });
    expect(info?.state).toEqual(out.state);
    expect(info?.outputs).toEqual(out.outputs);
    expect(await flow.getRun('nope')).toBeUndefined();
  });

  it('resumes an aborted run where it stopped: finished steps never run again, the result covers the whole run', async () => {
    const reference = await reviewFlow(new MemoryStore(), []).kickoff({ inputs: { id: 'ref' } });
    const store = new MemoryStore();
    const controller = new AbortController();
    const ran: string[] = [];
    const flow = reviewFlow(store, ran, new Set(), 'review', { label: 'revise2', controller });
    await expect(flow.kickoff({ inputs: { id: 'a1' }, signal: controller.signal })).rejects.toMatchObject({
      code: 'aborted',
    });
    expect(ran).toEqual(['draft', 'review1', 'revise2']);
    await nextTurn(); // the aborted snapshot's write lands (the memory store answers on microtasks)
    expect((await flow.getRun('a1'))?.status).toBe('aborted');
    const again: string[] = [];
    const out = await reviewFlow(store, again).resume('a1');
    expect(again).toEqual(['revise2', 'review2', 'revise3', 'review3', 'publish']);
    expect(out.status).toBe('completed');
    expect(out.id).toBe('a1');
    expect(out.trail).toEqual(reference.trail);
    expect(out.emitted).toEqual(reference.emitted);
    expect(out.outputs).toEqual({ ...reference.outputs });
    expect(out.output).toEqual(reference.output);
  });

  it('refuses a stored run of another shape (snapshot_version), naming the run, and runs nothing', async () => {
    const store = new MemoryStore();
    await reviewFlow(store, []).kickoff({ inputs: { id: 'other' } });
    const header = (await store.get('flow_runs', 'other', 'run'))?.value as Record<string, unknown>;
    await store.put('flow_runs', 'other', 'run', { ...header, version: 2 } as JsonValue);
    const again: string[] = [];
    await expect(reviewFlow(store, again).getRun('other')).rejects.toMatchObject({
      code: 'snapshot_version',
      message: expect.stringContaining('Flow run other'),
    });
    await expect(reviewFlow(store, again).resume('other')).rejects.toMatchObject({
      code: 'snapshot_version',
    });
    expect(again).toEqual([]);
  });

  it('resumes a failed run: the failed step runs again, then the flow goes on', async () => {
    const store = new MemoryStore();
    const ran: string[] = [];
    const first = await reviewFlow(store, ran, new Set(['revise2'])).kickoff({ inputs: { id: 'f1' } });
    expect(first.status).toBe('failed');
    expect(first.errors.revise).toMatch(/revise2 broke/);
    const again: string[] = [];
    const out = await reviewFlow(store, again).resume('f1');
    expect(again[0]).toBe('revise2');
    expect(again).not.toContain('draft');
    expect(out.status).toBe('completed');
    expect(out.errors).toEqual({});
    expect(out.trail).toEqual(['draft', 'review', 'revise', 'review', 'revise', 'review', 'publish']);
    expect(out.state.versions).toEqual(['v1', 'v2', 'v3']);
  });

  it('returns a completed run’s stored result and runs nothing', async () => {
    const store = new MemoryStore();
    const out = await reviewFlow(store, []).kickoff({ inputs: { id: 'c1' } });
    const again: string[] = [];
    const resumed = await reviewFlow(store, again).resume('c1');
    expect(again).toEqual([]);
    expect({ ...resumed, totalTimeMs: 0 }).toEqual({ ...out, totalTimeMs: 0 });
  });

  it('forks a stored run: a new id, its stored state with the inputs merged, the source unchanged', async () => {
    const store = new MemoryStore();
    const flow = reviewFlow(store, []);
    await flow.kickoff({ inputs: { id: 'src' } });
    const fork = await flow.kickoff({ from: 'src', inputs: { id: 'fork', extra: true } });
    expect(fork.id).toBe('fork');
    expect(fork.state).toMatchObject({ extra: true });
    expect(fork.state.versions.slice(0, 3)).toEqual(['v1', 'v2', 'v3']);
    expect((await flow.getRun('src'))?.state).toMatchObject({ id: 'src' });
    expect(() => flow.run({ from: 'src' })).toThrow(expect.objectContaining({ code: 'invalid_option' }));
  });

  it('refuses what it cannot do, with codes: run_not_found, flow_mismatch, not_paused, store_required', async () => {
    const store = new MemoryStore();
    await reviewFlow(store, []).kickoff({ inputs: { id: 'x' } });
    await expect(reviewFlow(store, []).resume('missing')).rejects.toMatchObject({ code: 'run_not_found' });
    await expect(reviewFlow(store, [], new Set(), 'other').resume('x')).rejects.toMatchObject({
      code: 'flow_mismatch',
    });
    await expect(reviewFlow(store, []).resume('x', { route: 'ok' })).rejects.toMatchObject({
      code: 'not_paused',
    });
    const storeless = createFlow({ name: 'plain', initialState: {} }).start('a', () => 1);
    await expect(storeless.resume('x')).rejects.toMatchObject({ code: 'store_required' });
    await expect(storeless.getRun('x')).rejects.toMatchObject({ code: 'store_required' });
  });

  it('fails the run with the store’s error when a snapshot cannot be written', async () => {
    class Unreachable extends MemoryStore {
      override async commit(): Promise<boolean> {
        throw new StatecrewError('store_unavailable', 'no disk');
      }
    }
    const out = reviewFlow(new Unreachable(), []).kickoff({ inputs: { id: 'u' } });
    await expect(out).rejects.toMatchObject({ code: 'store_unavailable' });
  });

  it('rejects the kickoff with store_unavailable when the store cannot be reached, before any step', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'statecrew-unreachable-'));
    try {
      const file = join(dir, 'a-file');
      writeFileSync(file, '');
      const ran: string[] = [];
      const nowhere = new SqliteStore({ path: join(file, 'db.sqlite') }); // no directory under a file
      await expect(reviewFlow(nowhere, ran).kickoff()).rejects.toMatchObject({
        code: 'store_unavailable',
      });
      expect(ran).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
