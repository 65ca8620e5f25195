import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { MemoryStore, SqliteStore, type Store } from '../../src/index.js';
import { PostgresStore } from '../../src/stores/postgres.js';
import { CRASH_TASKS, crashCrew, crashFlow } from '../fixtures/crash-crew-definition.js';

const child = fileURLToPath(new URL('../fixtures/crash-crew.ts', import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'statecrew-crash-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Starts the crew or flow in a child process and kills it (SIGKILL) once its fourth task or step runs. */
function runAndKill(args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ['--import', 'tsx', child, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    proc.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('RUNNING t4') || out.includes('RUNNING s4')) proc.kill('SIGKILL');
    });
    proc.stderr.on('data', (chunk: Buffer) => {
      err += chunk.toString();
    });
    proc.on('exit', (code, signal) =>
      signal === 'SIGKILL' ? resolve() : reject(new Error(`child exited ${code}: ${err}`)),
    );
  });
}

/** PostgreSQL runs here unless STATECREW_NO_SERVICES=1 says it does not. */
const services = process.env.STATECREW_NO_SERVICES !== '1';
if (!services) console.log('PostgreSQL crash tests skipped: STATECREW_NO_SERVICES=1');

const runsOf = (log: string) => readFileSync(log, 'utf8').trim().split('\n');

async function crashAndResume(
  makeStore: () => Store,
  childArgs: (executionId: string, log: string) => string[],
) {
  const log = join(root, `log-${Math.random().toString(36).slice(2)}`);
  await runAndKill(childArgs('crashed-run', log));
  expect(runsOf(log)).toEqual(['t1', 't2', 't3', 't4']);
  // A fresh store object and a fresh definition, as a new process would have.
  const store = makeStore();
  const resumed = await crashCrew(store, log).resume('crashed-run');
  await store.close();
  const reference = await crashCrew(new MemoryStore(), join(root, 'reference-log')).kickoff();
  expect(resumed.status).toBe('completed');
  expect(resumed.tasksOutput.map((t) => t.raw)).toEqual(reference.tasksOutput.map((t) => t.raw));
  expect(resumed.raw).toBe(reference.raw);
  const runs = runsOf(log);
  for (const task of ['t1', 't2', 't3']) expect(runs.filter((t) => t === task)).toHaveLength(1);
  expect(runs.filter((t) => t === 't4')).toHaveLength(2);
  expect(runs).toHaveLength(CRASH_TASKS.length + 1);
  expect(resumed.metadata.restored).toEqual(['t1', 't2', 't3']);
}

async function flowCrashAndResume(makeStore: () => Store, childArgs: (id: string, log: string) => string[]) {
  const log = join(root, `flow-log-${Math.random().toString(36).slice(2)}`);
  await runAndKill(childArgs('crashed-flow', log));
  expect(runsOf(log)).toEqual(['s1', 's2', 's3', 's4']);
  const store = makeStore();
  const flow = crashFlow(store, log);
  expect((await flow.getRun('crashed-flow'))?.status).toBe('running');
  const resumed = await flow.resume('crashed-flow');
  await store.close();
  const reference = await crashFlow(new MemoryStore(), join(root, 'flow-reference-log')).kickoff({
    inputs: { id: 'crashed-flow' },
  });
  expect({ ...resumed, totalTimeMs: 0 }).toEqual({ ...reference, totalTimeMs: 0 });
  const runs = runsOf(log);
  for (const step of ['s1', 's2', 's3', 's5', 's6']) expect(runs.filter((s) => s === step)).toHaveLength(1);
  expect(runs.filter((s) => s === 's4')).toHaveLength(2);
}

describe('a flow process killed mid-run', () => {
  it('resumes from SQLite in another process: finished steps never run again', async () => {
    const file = join(root, 'flow-crash.db');
    await flowCrashAndResume(
      () => new SqliteStore({ path: file }),
      (id, log) => ['flow', 'sqlite', file, id, log],
    );
  }, 60_000);

  it.skipIf(!services)(
    'resumes from PostgreSQL in another process: finished steps never run again',
    async () => {
      const server = 'postgres://postgres@127.0.0.1:5432/test';
      const schema = `statecrew_flow_crash_${process.pid}`;
      const admin = new pg.Client({ connectionString: server });
      await admin.connect();
      await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      try {
        await flowCrashAndResume(
          () => new PostgresStore({ connectionString: server, schema }),
          (id, log) => ['flow', 'postgres', server, schema, id, log],
        );
      } finally {
        await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await admin.end();
      }
    },
    60_000,
  );
});

describe('a crew process killed mid-run', () => {
  it('resumes from SQLite in another process: finished tasks never run again', async () => {
    const file = join(root, 'crash.db');
    await crashAndResume(
      () => new SqliteStore({ path: file }),
      (id, log) => ['crew', 'sqlite', file, id, log],
    );
  }, 60_000);

  it.skipIf(!services)(
    'resumes from PostgreSQL in another process: finished tasks never run again',
    async () => {
      const server = 'postgres://postgres@127.0.0.1:5432/test';
      const schema = `statecrew_crash_${process.pid}`;
      const admin = new pg.Client({ connectionString: server });
      await admin.connect();
      await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      try {
        await crashAndResume(
          () => new PostgresStore({ connectionString: server, schema }),
          (id, log) => ['crew', 'postgres', server, schema, id, log],
        );
      } finally {
        await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await admin.end();
      }
    },
    60_000,
  );
});
