import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { JsonValue, RunHead, RunLease, Store } from '../../src/stores/store.js';
import { codeOf } from '../store-helpers.js';
import type { StoreHarness } from './store.contract.js';

/** A lease with `token`, expiring at `expiresAt`. */
export function lease(token: string, expiresAt = Date.now() + 60_000): RunLease {
  return { owner: `test:${token}`, token, expiresAt, host: 'test-host', pid: 4242, thread: 0 };
}

/** A new run's head, running under `token` (or no lease). */
export function head(id: string, token: string | null = 'a', overrides: Partial<RunHead> = {}): RunHead {
  const now = Date.now();
  return {
    id,
    kind: 'flow',
    name: 'refund',
    status: 'running',
    version: 1,
    lease: token === null ? null : lease(token),
    data: { inputs: { amount: 120, who: 'Zoë "Q"' } },
    createdAt: now,
    updatedAt: now,
    ...overrides,
  };
}

const keysOf = async (store: Store, id: string) =>
  (await store.list('flow_runs', id)).map((r) => r.key).sort();

/** Run heads, leases, fenced commits, claims and pruning: the part of the contract that keeps one owner per run. */
export function runStoreContract(name: string, harness: StoreHarness): void {
  describe(`${name}: one owner per run`, () => {
    let store: Store;
    const others: Store[] = [];
    const other = async () => {
      const opened = await harness.reopen();
      others.push(opened);
      return opened;
    };

    beforeEach(async () => {
      store = await harness.open();
    });

    afterEach(async () => {
      for (const opened of others.splice(0)) await opened.close();
      await store.close();
      await harness.cleanup();
    });

    it('creates a run’s head once: of eight claims of one id at once, from two store objects, one wins', async () => {
      const second = await other();
      const claims = await Promise.all(
        Array.from({ length: 8 }, (_, i) => (i % 2 === 0 ? store : second).createRun(head('r1', `t${i}`))),
      );
      expect(claims.filter(Boolean)).toHaveLength(1);
      const winner = claims.indexOf(true);
      const stored = await second.readRun('r1');
      expect(stored).toMatchObject({ id: 'r1', kind: 'flow', name: 'refund', status: 'running', version: 1 });
      expect(stored?.lease?.token).toBe(`t${winner}`);
      expect(stored?.data).toEqual({ inputs: { amount: 120, who: 'Zoë "Q"' } });
      expect(await store.readRun('nobody')).toBeUndefined();
    });

    it('claims by compare-and-set on the version: a stale version changes nothing', async () => {
      await store.createRun(head('r1', null, { status: 'paused' }));
      expect(await store.claimRun('r1', 1, { status: 'running', lease: lease('b') })).toBe(true);
      expect(await store.claimRun('r1', 1, { status: 'running', lease: lease('c') })).toBe(false);
      const claimed = await store.readRun('r1');
      expect(claimed).toMatchObject({ status: 'running', version: 2 });
      expect(claimed?.lease).toEqual({
        ...lease('b', claimed?.lease?.expiresAt),
        remainingMs: expect.any(Number),
      });
      expect(await store.claimRun('missing', 1, { status: 'running', lease: lease('d') })).toBe(false);
    });

    it('lets exactly one of many concurrent claims of one version through, across store objects', async () => {
      const second = await other();
      await store.createRun(head('r1', null, { status: 'paused' }));
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          (i % 2 === 0 ? store : second).claimRun('r1', 1, { status: 'running', lease: lease(`t${i}`) }),
        ),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
      expect((await store.readRun('r1'))?.lease?.token).toBe(`t${results.indexOf(true)}`);
    });

    it('renews a lease only for its token', async () => {
      await store.createRun(head('r1', 'a'));
      const later = Date.now() + 120_000;
      expect(await store.renewLease('r1', 'a', later)).toBe(true);
      expect((await store.readRun('r1'))?.lease?.expiresAt).toBe(later);
      expect((await store.readRun('r1'))?.version).toBe(1);
      expect(await store.renewLease('r1', 'b', later + 1)).toBe(false);
      expect(await store.renewLease('nobody', 'a', later)).toBe(false);
      await store.createRun(head('r2', null));
      expect(await store.renewLease('r2', 'a', later)).toBe(false);
    });

    it('commits records and a status together while the token holds; a stale token writes nothing', async () => {
      await store.createRun(head('r1', 'a'));
      await store.put('flow_runs', 'r1', 'run', { status: 'running' });
      const writes = [
        { collection: 'flow_runs' as const, key: 'step:one', value: { out: 1 } },
        { collection: 'flow_runs' as const, key: 'run', value: { status: 'completed' } },
      ];
      expect(await store.commit('r1', { token: 'b', writes, status: 'completed' })).toBe(false);
      expect(await keysOf(store, 'r1')).toEqual(['run']);
      expect((await store.get('flow_runs', 'r1', 'run'))?.value).toEqual({ status: 'running' });
      expect((await store.readRun('r1'))?.status).toBe('running');

      expect(await store.commit('r1', { token: 'a', writes })).toBe(true);
      expect((await store.readRun('r1'))?.version).toBe(1);
      expect((await store.list('flow_runs', 'r1')).map((r) => r.key)).toEqual(['run', 'step:one']);
      expect(await store.commit('r1', { token: 'a', writes: [], status: 'completed', release: true })).toBe(
        true,
      );
      expect(await store.readRun('r1')).toMatchObject({ status: 'completed', version: 2, lease: null });
      expect(await store.commit('r1', { token: 'a', writes })).toBe(false);
      expect(await store.commit('nobody', { token: 'a', writes })).toBe(false);
    });

    it('writes a commit whole or not at all: a value JSON cannot carry fails it before anything lands', async () => {
      await store.createRun(head('r1', 'a'));
      const circular: Record<string, unknown> = {};
      circular.self = circular;
      const writes = [
        { collection: 'crew_task_results' as const, key: 'good', value: { ok: true } },
        { collection: 'crew_task_results' as const, key: 'bad', value: circular as JsonValue },
      ];
      expect(await codeOf(store.commit('r1', { token: 'a', writes, status: 'failed' }))).toBe(
        'invalid_option',
      );
      expect(await store.list('crew_task_results', 'r1')).toEqual([]);
      expect((await store.readRun('r1'))?.status).toBe('running');
    });

    it('leaves the head as it is on a commit of records alone; a status or a release moves updatedAt', async () => {
      await store.createRun(head('r1', 'a', { createdAt: 1000, updatedAt: 1000 }));
      const writes = [{ collection: 'flow_runs' as const, key: 'step:one', value: 1 }];
      expect(await store.commit('r1', { token: 'a', writes })).toBe(true);
      expect(await store.readRun('r1')).toMatchObject({ version: 1, updatedAt: 1000, status: 'running' });
      expect((await store.readRun('r1'))?.lease?.token).toBe('a');
      expect(await store.commit('r1', { token: 'a', writes: [], status: 'paused', release: true })).toBe(
        true,
      );
      const settled = await store.readRun('r1');
      expect(settled).toMatchObject({ version: 2, status: 'paused', lease: null });
      expect(settled?.updatedAt).toBeGreaterThan(1000);
      expect(await store.listRuns({ statuses: ['paused'] })).toHaveLength(1);
      expect(await store.listRuns({ statuses: ['running'] })).toEqual([]);
    });

    it('keeps the last value when one commit writes a key twice', async () => {
      await store.createRun(head('r1', 'a'));
      const writes = [
        { collection: 'flow_runs' as const, key: 'state', value: { round: 1 } },
        { collection: 'flow_runs' as const, key: 'other', value: 'x' },
        { collection: 'flow_runs' as const, key: 'state', value: { round: 2 } },
      ];
      expect(await store.commit('r1', { token: 'a', writes })).toBe(true);
      expect((await store.get('flow_runs', 'r1', 'state'))?.value).toEqual({ round: 2 });
      expect(await keysOf(store, 'r1')).toEqual(['other', 'state']);
    });

    it('fences commits racing a takeover: exactly the commits that resolved true are stored', async () => {
      const second = await other();
      await store.createRun(head('r1', 'a'));
      const commits = Array.from({ length: 30 }, (_, i) =>
        store.commit('r1', {
          token: 'a',
          writes: [{ collection: 'flow_runs', key: `k${String(i).padStart(2, '0')}`, value: i }],
        }),
      );
      const takeover = second.claimRun('r1', 1, { status: 'running', lease: lease('b'), replaces: 'a' });
      const results = await Promise.all(commits);
      expect(await takeover).toBe(true);
      const landed = results.flatMap((ok, i) => (ok ? [`k${String(i).padStart(2, '0')}`] : []));
      expect(await keysOf(second, 'r1')).toEqual(landed);
      expect(
        await store.commit('r1', {
          token: 'a',
          writes: [{ collection: 'flow_runs', key: 'late', value: 1 }],
        }),
      ).toBe(false);
      expect(await keysOf(second, 'r1')).toEqual(landed);
    });

    it('refuses a claim while the lease is live on its clock, unless the claim names it as replaced', async () => {
      await store.createRun(head('r1', 'a'));
      expect(await store.claimRun('r1', 1, { status: 'running', lease: lease('b') })).toBe(false);
      expect(await store.claimRun('r1', 1, { status: 'running', lease: lease('b'), replaces: 'x' })).toBe(
        false,
      );
      expect((await store.readRun('r1'))?.lease?.token).toBe('a');
      expect(await store.claimRun('r1', 1, { status: 'running', lease: lease('b'), replaces: 'a' })).toBe(
        true,
      );
      await store.createRun(head('r2', null, { lease: lease('a', Date.now() - 1000) }));
      expect(await store.claimRun('r2', 1, { status: 'running', lease: lease('c') })).toBe(true);
      expect((await store.readRun('r2'))?.lease?.token).toBe('c');
    });

    it('sets a lease’s expiry from ttlMs on its own clock, whatever the writer’s clock said, and tells the time left', async () => {
      // A writer whose clock is an hour behind, or ahead: its expiresAt is not what the store keeps.
      const behind = { ...lease('a', Date.now() - 3_600_000), ttlMs: 60_000 };
      await store.createRun(head('r1', null, { lease: behind }));
      const created = (await store.readRun('r1'))?.lease;
      expect(created?.ttlMs).toBe(60_000);
      expect(created?.remainingMs).toBeGreaterThan(30_000);
      expect(created?.remainingMs).toBeLessThanOrEqual(60_000);
      expect(await store.claimRun('r1', 1, { status: 'running', lease: lease('b') })).toBe(false);
      expect(await store.renewLease('r1', 'a', Date.now() - 3_600_000, 90_000)).toBe(true);
      expect((await store.readRun('r1'))?.lease?.remainingMs).toBeGreaterThan(60_000);
      const ahead = { ...lease('c', Date.now() + 3_600_000), ttlMs: 1 };
      await store.createRun(head('r2', null, { status: 'paused' }));
      expect(await store.claimRun('r2', 1, { status: 'running', lease: ahead })).toBe(true);
      const claimed = await store.readRun('r2');
      expect(claimed?.lease?.expiresAt).toBeLessThan(Date.now() + 60_000);
      // One ms on the store's clock has passed (or passes) before anyone reads it: it is then free.
      await expect.poll(async () => (await store.readRun('r2'))?.lease?.remainingMs).toBeLessThanOrEqual(0);
      expect(await store.claimRun('r2', 2, { status: 'running', lease: lease('d') })).toBe(true);
    });

    it('never prunes a run whose lease is live, whatever its status; pruneRuns tells which it kept back', async () => {
      await store.createRun(head('live', 'a'));
      await store.put('flow_runs', 'live', 'run', { round: 1 });
      await store.createRun(head('dead', null, { lease: lease('b', Date.now() - 1000) }));
      await store.createRun(head('waiting', null, { status: 'paused' }));
      const future = Date.now() + 60_000;
      expect(await store.prune({ olderThan: future, statuses: ['running'] })).toEqual(['dead']);
      const result = await store.pruneRuns?.({ olderThan: future, statuses: ['running', 'paused'] });
      expect(result).toEqual({ pruned: ['waiting'], kept: ['live'] });
      expect((await store.readRun('live'))?.lease?.token).toBe('a');
      expect((await store.get('flow_runs', 'live', 'run'))?.value).toEqual({ round: 1 });
      expect(await store.commit('live', { token: 'a', writes: [], status: 'completed', release: true })).toBe(
        true,
      );
      expect(await store.pruneRuns?.({ olderThan: future })).toEqual({ pruned: ['live'], kept: [] });
    });

    it('lists run heads sorted by id, filtered by status', async () => {
      await store.createRun(head('b-run', 'a'));
      await store.createRun(head('a-run', null, { status: 'paused', kind: 'crew', name: 'research' }));
      await store.createRun(head('c-run', null, { status: 'completed' }));
      expect((await store.listRuns()).map((h) => h.id)).toEqual(['a-run', 'b-run', 'c-run']);
      const open = await store.listRuns({ statuses: ['running', 'paused'] });
      expect(open.map((h) => [h.id, h.kind, h.status])).toEqual([
        ['a-run', 'crew', 'paused'],
        ['b-run', 'flow', 'running'],
      ]);
      expect(await store.listRuns({ statuses: ['aborted'] })).toEqual([]);
    });

    it('lists runs by definition and creation time, and a page at a time newest first from a position that holds under inserts', async () => {
      const t = 1_700_000_000_000;
      const at = (ms: number, more: Partial<RunHead> = {}) => ({ createdAt: ms, updatedAt: ms, ...more });
      await store.createRun(head('r1', null, at(t, { status: 'completed' })));
      await store.createRun(head('r2', null, at(t + 10, { name: 'other' })));
      await store.createRun(head('r3', null, at(t + 10, { status: 'paused' })));
      await store.createRun(head('r4', null, at(t + 20)));
      const ids = async (filter: Parameters<Store['listRuns']>[0]) =>
        (await store.listRuns(filter)).map((h) => h.id);
      expect(await ids({ name: 'refund' })).toEqual(['r1', 'r3', 'r4']);
      expect(await ids({ createdFrom: t + 10, createdBefore: t + 20 })).toEqual(['r2', 'r3']);
      expect(await ids({ page: { limit: 2 } })).toEqual(['r4', 'r3']);
      // Runs inserted while a client pages: a newer one lands before its position, one of the same
      // millisecond with a smaller id after it, and the pages after the position lose and repeat nothing.
      await store.createRun(head('r5', null, at(t + 30)));
      await store.createRun(head('r25', null, at(t + 10)));
      const after = { createdAt: t + 10, id: 'r3' };
      expect(await ids({ page: { limit: 2, after } })).toEqual(['r25', 'r2']);
      expect(await ids({ page: { limit: 2, after: { createdAt: t + 10, id: 'r2' } } })).toEqual(['r1']);
      const running = await store.listRuns({ statuses: ['running'], name: 'refund', page: { limit: 10 } });
      expect(running.map((h) => [h.id, h.status, h.createdAt])).toEqual([
        ['r5', 'running', t + 30],
        ['r4', 'running', t + 20],
        ['r25', 'running', t + 10],
      ]);
      for (const bad of [
        { page: { limit: 0 } },
        { createdFrom: 1.5 },
        { page: { limit: 1, after: { id: 'r1' } } },
      ]) {
        expect(await codeOf(store.listRuns(bad as Parameters<Store['listRuns']>[0]))).toBe('invalid_option');
      }
    });

    it('prunes settled runs older than a time with every record they own, and nothing else', async () => {
      const settled = ['done', 'broke', 'partly', 'stopped'];
      const statuses = ['completed', 'failed', 'partial', 'aborted'] as const;
      for (const [i, id] of settled.entries()) {
        await store.createRun(head(id, 'a'));
        await store.commit(id, {
          token: 'a',
          writes: [{ collection: 'crew_task_results', key: 't1', value: { i } }],
          status: statuses[i],
          release: true,
        });
        await store.put('crew_executions', id, 'run', { i });
        await store.put('flow_runs', id, 'run', { i });
      }
      await store.createRun(head('live', 'b'));
      await store.put('flow_runs', 'live', 'run', {});
      await store.createRun(head('waiting', null, { status: 'paused' }));
      expect(await store.prune({ olderThan: 0 })).toEqual([]);
      expect(await store.prune({ olderThan: Date.now() + 60_000, statuses: ['completed'] })).toEqual([
        'done',
      ]);
      expect(await store.prune({ olderThan: new Date(Date.now() + 60_000) })).toEqual([
        'broke',
        'partly',
        'stopped',
      ]);
      for (const id of settled) {
        expect(await store.readRun(id)).toBeUndefined();
        expect(await store.list('crew_task_results', id)).toEqual([]);
        expect(await store.list('flow_runs', id)).toEqual([]);
        expect(await store.get('crew_executions', id, 'run')).toBeUndefined();
      }
      expect((await store.listRuns()).map((h) => h.id)).toEqual(['live', 'waiting']);
      expect(await store.executions('flow_runs')).toEqual(['live']);
      expect(await store.executions('crew_executions')).toEqual([]);
    });

    it('prunes keeping history: the matching runs keep their head and records, only their kept events go', async () => {
      for (const id of ['old', 'live']) {
        await store.createRun(head(id, id === 'live' ? 'b' : 'a', { data: { inputs: {}, thread: 'chat' } }));
        await store.commit(id, {
          token: id === 'live' ? 'b' : 'a',
          writes: [
            { collection: 'flow_runs', key: 'run', value: { id } },
            { collection: 'run_events', key: '000000000001', value: { type: 'run.started' } },
            { collection: 'run_events', key: '000000000002', value: { type: 'run.completed' } },
          ],
          ...(id === 'live' ? {} : { status: 'completed' as const, release: true }),
        });
        await store.insert('run_threads', 'chat', id === 'old' ? '000000000001' : '000000000002', {
          runId: id,
          at: 1,
        });
      }
      const future = Date.now() + 60_000;
      const result = await store.pruneRuns?.({
        olderThan: future,
        statuses: ['completed', 'running'],
        keepHistory: true,
      });
      expect(result).toEqual({ pruned: ['old'], kept: ['live'] });
      expect((await store.readRun('old'))?.status).toBe('completed');
      expect((await store.get('flow_runs', 'old', 'run'))?.value).toEqual({ id: 'old' });
      expect(await store.list('run_events', 'old')).toEqual([]);
      expect((await store.list('run_events', 'live')).length).toBe(2);
      expect((await store.listRuns({ thread: 'chat' })).map((h) => h.id)).toEqual(['old', 'live']);
      // Pruned for good, a run leaves its thread's entries (a thread named as the run too): the thread
      // lists the runs that still exist.
      await store.insert('run_threads', 'old', '000000000001', { runId: 'live', at: 1 });
      // So does an evaluation's report kept under the run's id: it belongs to no run.
      await store.put('eval_reports', 'old', 'report', { id: 'old' });
      expect(await store.prune({ olderThan: future })).toEqual(['old']);
      expect((await store.get('eval_reports', 'old', 'report'))?.value).toEqual({ id: 'old' });
      expect(await store.readRun('old')).toBeUndefined();
      expect((await store.list('run_threads', 'chat')).map((r) => r.key)).toEqual([
        '000000000001',
        '000000000002',
      ]);
      expect((await store.listRuns({ thread: 'chat' })).map((h) => h.id)).toEqual(['live']);
      expect((await store.list('run_threads', 'old')).length).toBe(1);
      expect(await codeOf(store.prune({ olderThan: 0, keepHistory: 'yes' as unknown as boolean }))).toBe(
        'invalid_option',
      );
      expect(await codeOf(store.listRuns({ thread: '' }))).toBe('invalid_option');
    });

    it('refuses heads, claims, commits and prunes it cannot keep, naming what (invalid_option)', async () => {
      const circular: Record<string, unknown> = {};
      circular.self = circular;
      const bad = [
        store.createRun(head('')),
        store.createRun({ ...head('x'), status: 'sleeping' as 'running' }),
        store.createRun({ ...head('x'), kind: 'job' as 'flow' }),
        store.claimRun('x', 1, { status: 'done' as 'running', lease: null }),
        store.commit('x', { token: '', writes: [] }),
        store.commit('x', {
          token: 'a',
          writes: [{ collection: 'nope' as 'flow_runs', key: 'k', value: 1 }],
        }),
        store.prune({ olderThan: Number.NaN }),
        store.prune({ olderThan: Number.POSITIVE_INFINITY }),
        store.prune({ olderThan: new Date(Number.NaN) }),
        store.prune({ olderThan: 0, statuses: ['gone' as 'failed'] }),
        store.createRun({ ...head('x'), data: circular as JsonValue }),
        store.createRun({ ...head('x'), data: undefined as unknown as JsonValue }),
        store.createRun({ ...head('x'), createdAt: 1.5 }),
        store.createRun({ ...head('x'), updatedAt: Number.POSITIVE_INFINITY }),
        store.createRun(head('x', null, { lease: { ...lease('a'), expiresAt: Number.NaN } })),
        store.renewLease('x', 'a', Number.NaN),
        store.renewLease('x', 'a', 2 ** 60),
        store.listRuns({ statuses: ['sleeping' as 'running'] }),
      ];
      for (const attempt of bad) expect(await codeOf(attempt)).toBe('invalid_option');
      expect(await store.listRuns()).toEqual([]);
    });

    it('fails every run method after close with store_closed', async () => {
      await store.close();
      const calls = [
        store.createRun(head('r1')),
        store.readRun('r1'),
        store.claimRun('r1', 1, { status: 'running', lease: null }),
        store.renewLease('r1', 'a', 1),
        store.commit('r1', { token: 'a', writes: [] }),
        store.listRuns(),
        store.prune({ olderThan: 0 }),
      ];
      for (const call of calls) expect(await codeOf(call)).toBe('store_closed');
    });

    const { unreachable } = harness;
    if (unreachable !== undefined) {
      it('fails run methods fast with store_unavailable when its server or file cannot be reached', async () => {
        const nowhere = await unreachable();
        others.push(nowhere);
        expect(await codeOf(nowhere.createRun(head('r1')))).toBe('store_unavailable');
        expect(await codeOf(nowhere.commit('r1', { token: 'a', writes: [] }))).toBe('store_unavailable');
      });
    }
  });
}
