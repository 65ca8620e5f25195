import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../src/stores/sqlite.js';

const CHILD = fileURLToPath(new URL('../fixtures/stores/sqlite-group-child.ts', import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'statecrew-sqlite-group-processes-'));
const children: ChildProcessWithoutNullStreams[] = [];
afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
  rmSync(root, { recursive: true, force: true });
});

interface Child {
  /** Every commit it acknowledged: `<id> <key> <landed>`. */
  acks: string[];
  /** Resolves with the exit code (null when killed) once the process ends. */
  exited: Promise<number | null>;
  kill(): void;
  /** Resolves once the child acknowledged `n` commits. */
  acked(n: number): Promise<void>;
}

function start(file: string, name: string, runs: number, rounds: number, mode = 'batched'): Child {
  const args = ['--import', 'tsx', CHILD, file, name, String(runs), String(rounds), mode];
  const proc = spawn(process.execPath, args);
  children.push(proc);
  const acks: string[] = [];
  const waiters: [number, () => void][] = [];
  let buffer = '';
  proc.stdout.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    const lines = buffer.split('\n');
    buffer = lines.pop() ?? '';
    acks.push(...lines.filter((line) => line !== 'done'));
    for (const [n, wake] of waiters) if (acks.length >= n) wake();
  });
  let stderr = '';
  proc.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) =>
    proc.on('exit', (code) => {
      if (code !== 0 && code !== null) console.error(stderr);
      resolve(code);
    }),
  );
  const acked = (n: number) =>
    new Promise<void>((resolve, reject) => {
      if (acks.length >= n) return resolve();
      waiters.push([n, resolve]);
      void exited.then(() => (acks.length >= n ? resolve() : reject(new Error(`${name} exited: ${stderr}`))));
    });
  return { acks, exited, kill: () => proc.kill('SIGKILL'), acked };
}

/** The shared run, held by `a`'s token: `b`'s commits to it must all be refused. */
async function sharedRun(file: string): Promise<void> {
  const store = new SqliteStore({ path: file });
  const now = Date.now();
  const lease = { owner: 'a', token: 'a', expiresAt: now + 600_000, host: 'a', pid: 1, thread: 0 };
  await store.createRun({
    id: 'shared',
    ...{ kind: 'flow', name: 'f', status: 'running', version: 1, lease, data: {} },
    createdAt: now,
    updatedAt: now,
  });
  await store.close();
}

/** Every commit acknowledged as landed is in the file; none refused is; `b` never wrote to `shared`. */
async function check(file: string, acks: string[]): Promise<void> {
  const store = new SqliteStore({ path: file });
  for (const ack of acks) {
    const [id, key, landed] = ack.split(' ') as [string, string, string];
    const record = await store.get('flow_runs', id, key);
    expect({ ack, stored: record !== undefined }).toEqual({ ack, stored: landed === 'true' });
    if (id === 'shared') expect(landed).toBe(key.startsWith('a-') ? 'true' : 'false');
  }
  expect((await store.list('flow_runs', 'shared')).every((r) => r.key.startsWith('a-'))).toBe(true);
  await store.close();
}

describe('SqliteStore group commit, two processes on one file', () => {
  it('keeps every acknowledged commit of both, and the fence of the shared run', async () => {
    const file = join(root, 'both.db');
    await sharedRun(file);
    const [a, b] = [start(file, 'a', 10, 30), start(file, 'b', 10, 30)];
    expect(await Promise.all([a.exited, b.exited])).toEqual([0, 0]);
    expect(a.acks.length).toBe(330);
    expect(b.acks.length).toBe(330);
    await check(file, [...a.acks, ...b.acks]);
  }, 120_000);

  it('loses no acknowledged commit of a process killed mid-batch', async () => {
    const file = join(root, 'killed.db');
    await sharedRun(file);
    const [a, b] = [start(file, 'a', 10, 30), start(file, 'b', 10, 1000)];
    await b.acked(500);
    b.kill();
    expect(await b.exited).toBeNull();
    expect(await a.exited).toBe(0);
    await check(file, [...a.acks, ...b.acks]);
  }, 120_000);
});

describe('SqliteStore lone commits (one fenced statement each), two processes on one file', () => {
  it('keeps every acknowledged commit of both, and the fence of the shared run', async () => {
    const file = join(root, 'lone.db');
    await sharedRun(file);
    const [a, b] = [start(file, 'a', 5, 60, 'lone'), start(file, 'b', 5, 60, 'lone')];
    expect(await Promise.all([a.exited, b.exited])).toEqual([0, 0]);
    expect(a.acks.length).toBe(360);
    expect(b.acks.length).toBe(360);
    await check(file, [...a.acks, ...b.acks]);
  }, 120_000);

  it('lands none of the commits a process makes to a run once another took its lease', async () => {
    const file = join(root, 'taken.db');
    await sharedRun(file);
    const [a, b] = [start(file, 'a', 3, 400, 'lone'), start(file, 'b', 3, 400, 'lone')];
    await a.acked(200);
    const store = new SqliteStore({ path: file, busyTimeoutMs: 60_000 });
    const head = await store.readRun('shared');
    const lease = { owner: 'c', token: 'c', expiresAt: Date.now() + 600_000, host: 'c', pid: 1, thread: 0 };
    expect(
      await store.claimRun('shared', head?.version ?? 0, { status: 'running', lease, replaces: 'a' }),
    ).toBe(true);
    const landedBefore = new Set((await store.list('flow_runs', 'shared')).map((r) => r.key));
    await store.close();
    expect(await Promise.all([a.exited, b.exited])).toEqual([0, 0]);
    const shared = a.acks.filter((ack) => ack.startsWith('shared '));
    const refused = shared.findIndex((ack) => ack.endsWith(' false'));
    // Landed until the claim, refused from then on: once taken, the token never holds again.
    expect(refused).toBeGreaterThan(0);
    expect(shared.slice(refused).every((ack) => ack.endsWith(' false'))).toBe(true);
    const after = new SqliteStore({ path: file });
    const stored = (await after.list('flow_runs', 'shared')).map((r) => r.key);
    await after.close();
    expect(new Set(stored)).toEqual(landedBefore);
    const acked = shared.filter((ack) => ack.endsWith(' true')).map((ack) => ack.split(' ')[1]);
    expect(new Set(acked)).toEqual(landedBefore);
  }, 120_000);
});
