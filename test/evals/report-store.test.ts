import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type EvalReport,
  listEvalReports,
  MemoryStore,
  readEvalReport,
  SqliteStore,
  type Store,
  StoreUnavailableError,
  saveEvalReport,
} from '../../src/index.js';
import { type ProvidedStore, postgresStore, redisStore, services } from '../durable/store-specs.js';
import { openStore } from '../fixtures/durable/stores.js';
import { sampleReport } from '../fixtures/evals/store/report.js';
import { codeOf, wrapStore } from '../store-helpers.js';

const root = mkdtempSync(join(tmpdir(), 'statecrew-report-store-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
if (!services) console.log('PostgreSQL and Redis cases skipped: STATECREW_NO_SERVICES=1 says no server runs');

let serial = 0;
/** Each kind of store, opened fresh for one test, and how to remove it after. */
const kinds: [string, () => Promise<{ store: Store; cleanup(): Promise<void> }>][] = [
  ['memory', async () => ({ store: new MemoryStore(), cleanup: async () => {} })],
  [
    'SQLite',
    async () => {
      serial += 1;
      return {
        store: new SqliteStore({ path: join(root, `reports-${serial}.db`) }),
        cleanup: async () => {},
      };
    },
  ],
];
const onServer = (provide: () => ProvidedStore) => async () => {
  const provided = provide();
  return { store: await openStore(provided.spec), cleanup: () => provided.cleanup() };
};
if (services) kinds.push(['PostgreSQL', onServer(postgresStore)], ['Redis', onServer(() => redisStore())]);

for (const [kind, open] of kinds) {
  describe(`evaluation reports kept in the ${kind} store`, () => {
    let store: Store;
    let cleanup: () => Promise<void>;
    beforeEach(async () => {
      ({ store, cleanup } = await open());
    });
    afterEach(async () => {
      await store.close();
      await cleanup();
    });

    it('reads a saved report back whole, and undefined for an id never saved', async () => {
      const report = { ...sampleReport('eval-1'), extra: { kept: true } };
      await saveEvalReport(store, report);
      expect(await readEvalReport(store, 'eval-1')).toEqual(report);
      expect(await readEvalReport(store, 'eval-none')).toBeUndefined();
    });

    it('lists the heads newest startedAt first, each with its runs, scorer means and coverage', async () => {
      await saveEvalReport(store, sampleReport('eval-old', '2026-11-30T08:00:00.000Z'));
      await saveEvalReport(store, sampleReport('eval-new', '2026-12-02T08:00:00.000Z'));
      await saveEvalReport(store, sampleReport('eval-mid', '2026-12-01T09:00:00+02:00'));
      const heads = await listEvalReports(store);
      expect(heads.map((head) => head.id)).toEqual(['eval-new', 'eval-mid', 'eval-old']);
      expect(heads[0]).toEqual({
        id: 'eval-new',
        target: { kind: 'crew', name: 'research' },
        startedAt: '2026-12-02T08:00:00.000Z',
        runs: 2,
        means: { exact: 0.5 },
        coverage: 1,
      });
    });

    it('replaces a report saved again under its id', async () => {
      await saveEvalReport(store, sampleReport('eval-1'));
      const again: EvalReport = { ...sampleReport('eval-1'), iterations: 3 };
      await saveEvalReport(store, again);
      expect((await readEvalReport(store, 'eval-1'))?.iterations).toBe(3);
      expect((await listEvalReports(store)).map((head) => head.id)).toEqual(['eval-1']);
    });

    it('leaves the reports when runs are pruned', async () => {
      await saveEvalReport(store, sampleReport('eval-1'));
      await store.prune({ olderThan: Date.now() + 60_000, statuses: ['completed'] });
      expect((await listEvalReports(store)).map((head) => head.id)).toEqual(['eval-1']);
    });
  });
}

describe('saving a report', () => {
  const broken = () => Promise.reject(new StoreUnavailableError('BrokenStore', 'disk', 'full'));

  it('rejects with the store’s store_unavailable when the report cannot be written, and writes no head', async () => {
    const store = new MemoryStore();
    const failing = wrapStore(store, { put: () => broken() });
    expect(await codeOf(saveEvalReport(failing, sampleReport('eval-1')))).toBe('store_unavailable');
    expect(await store.get('eval_reports', 'eval-1', 'head')).toBeUndefined();
    expect(await listEvalReports(store)).toEqual([]);
  });

  it('never lists a head without its report: the report is written first, the head after it', async () => {
    const store = new MemoryStore();
    const written: string[] = [];
    const failing = wrapStore(store, {
      put: (collection, id, key, value) => {
        written.push(key);
        return key === 'head' ? broken() : store.put(collection, id, key, value);
      },
    });
    expect(await codeOf(saveEvalReport(failing, sampleReport('eval-1')))).toBe('store_unavailable');
    expect(written).toEqual(['report', 'head']);
    expect(await listEvalReports(store)).toEqual([]);
  });

  it('refuses what is not a report before writing anything (invalid_report naming the field)', async () => {
    const store = new MemoryStore();
    const bad = { ...sampleReport('eval-1'), cases: [{ caseId: '0' }] } as unknown as EvalReport;
    const refusal = await saveEvalReport(store, bad).then(
      () => undefined,
      (error: unknown) => error as { code: string; details: Record<string, unknown> },
    );
    expect(refusal).toMatchObject({ code: 'invalid_report', details: { field: 'cases[0].index' } });
    expect(await store.executions('eval_reports')).toEqual([]);
  });

  it('refuses a kept record that is not a report when read (invalid_report naming the store)', async () => {
    const store = new MemoryStore();
    await store.put('eval_reports', 'eval-1', 'report', { format: 1, id: 'eval-1' });
    await expect(readEvalReport(store, 'eval-1')).rejects.toMatchObject({
      code: 'invalid_report',
      details: { where: '"eval-1" in the memory store', field: 'target' },
    });
  });
});

describe('an older SQLite file', () => {
  it('upgraded, keeps its runs and accepts reports', async () => {
    const file = join(root, 'v5.db');
    const before = new SqliteStore({ path: file });
    await before.createRun({
      id: 'run-1',
      kind: 'crew',
      name: 'research',
      status: 'completed',
      version: 1,
      lease: null,
      data: {},
      createdAt: 1,
      updatedAt: 1,
    });
    await before.put('crew_executions', 'run-1', 'run', { done: true });
    await before.close();
    const db = new Database(file);
    db.exec('DROP TABLE eval_reports');
    db.pragma('user_version = 5');
    db.close();
    const store = new SqliteStore({ path: file });
    try {
      expect((await store.readRun('run-1'))?.status).toBe('completed');
      expect((await store.get('crew_executions', 'run-1', 'run'))?.value).toEqual({ done: true });
      await saveEvalReport(store, sampleReport('eval-1'));
      expect((await listEvalReports(store)).map((head) => head.id)).toEqual(['eval-1']);
      expect((await store.listRuns()).map((head) => head.id)).toEqual(['run-1']);
    } finally {
      await store.close();
    }
  });
});
