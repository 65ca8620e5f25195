import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { listEvalReports, readEvalReport } from '../../src/index.js';
import { type ProvidedStore, postgresStore, services, sqliteStore } from '../durable/store-specs.js';
import { openStore, type StoreSpec } from '../fixtures/durable/stores.js';

const script = fileURLToPath(new URL('../fixtures/evals/store/save-report.ts', import.meta.url));
if (!services) console.log('PostgreSQL case skipped: STATECREW_NO_SERVICES=1 says no server runs');

/** Runs the saving script on `spec` for report `id`: what it printed, its exit code and stderr. */
function saveInChild(spec: StoreSpec, id: string, startedAt: string) {
  const child = spawn(process.execPath, ['--import', 'tsx', script, JSON.stringify(spec), id, startedAt]);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise<{ stdout: string; code: number | null; stderr: string }>((resolve) =>
    child.on('exit', (code) => resolve({ stdout: stdout.trim(), code, stderr })),
  );
}

const kinds: [string, () => ProvidedStore][] = [['one SQLite file', sqliteStore]];
if (services) kinds.push(['one PostgreSQL schema', postgresStore]);

for (const [kind, provide] of kinds) {
  describe(`reports saved by two processes at once into ${kind}`, () => {
    const provided = provide();
    afterAll(() => provided.cleanup());

    it('keeps both: each reads back whole, and the listing has both, newest first', async () => {
      const outcomes = await Promise.all([
        saveInChild(provided.spec, 'eval-a', '2026-12-01T10:00:00.000Z'),
        saveInChild(provided.spec, 'eval-b', '2026-12-02T10:00:00.000Z'),
      ]);
      for (const outcome of outcomes) {
        expect(outcome, outcome.stderr).toMatchObject({ stdout: '{"ok":true}', code: 0 });
      }
      const store = await openStore(provided.spec);
      try {
        expect((await listEvalReports(store)).map((head) => head.id)).toEqual(['eval-b', 'eval-a']);
        expect((await readEvalReport(store, 'eval-a'))?.cases.map((c) => c.runId)).toEqual([
          'run-0',
          'run-1',
        ]);
        expect((await readEvalReport(store, 'eval-b'))?.startedAt).toBe('2026-12-02T10:00:00.000Z');
      } finally {
        await store.close();
      }
    }, 120_000);
  });
}
