import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, watch, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { openStore, type StoreSpec } from '../fixtures/durable/stores.js';
import { type ProvidedStore, postgresStore, services, sqliteStore } from './store-specs.js';

const script = fileURLToPath(new URL('../fixtures/durable/many-flows.ts', import.meta.url));
const FLOWS = 40;
const STEPS = 40;
/** The log lines (steps run) at which the child is killed: a tenth of the way. */
const KILL_AT = (FLOWS * STEPS) / 10;

const stores: [string, () => ProvidedStore][] = [['SqliteStore (a file)', sqliteStore]];
if (services) stores.push(['PostgresStore (a schema)', postgresStore]);

/** A child process running FLOWS flows of STEPS steps at once (`many-flows.ts`). */
function child(spec: StoreSpec, files: Files, mode: 'kickoff' | 'resume') {
  const args = ['--import', 'tsx', script, JSON.stringify(spec), files.log, files.acks, mode];
  const proc = spawn(process.execPath, [...args, String(FLOWS), String(STEPS)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  proc.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  proc.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = once(proc, 'exit') as Promise<[number | null, string | null]>;
  return { proc, exited, output: () => ({ stdout, stderr }) };
}

interface Files {
  log: string;
  acks: string;
}

const lines = (file: string) => readFileSync(file, 'utf8').split('\n').filter(Boolean);

/** Resolves once `file` has `n` lines; rejects if `exited` comes first. */
async function untilLines(file: string, n: number, exited: Promise<unknown>): Promise<void> {
  const watcher = watch(file);
  try {
    let gone = false;
    void exited.then(() => {
      gone = true;
      watcher.emit('change');
    });
    for (;;) {
      const changed = once(watcher, 'change');
      if (lines(file).length >= n) return;
      if (gone) throw new Error(`the child exited with ${lines(file).length} of ${n} log lines`);
      await changed;
    }
  } finally {
    watcher.close();
  }
}

/** Each run's stored step records: step key → its output. */
async function storedSteps(spec: StoreSpec): Promise<Map<string, Map<string, unknown>>> {
  const store = await openStore(spec);
  try {
    const runs = new Map<string, Map<string, unknown>>();
    for (let k = 0; k < FLOWS; k += 1) {
      const records = await store.list('flow_runs', `run-${k}`);
      const steps = records.filter((r) => r.key.startsWith('step:'));
      runs.set(`run-${k}`, new Map(steps.map((r) => [r.key, (r.value as { output: unknown }).output])));
    }
    return runs;
  } finally {
    await store.close();
  }
}

describe.each(stores)('Group commit and a crash: %s', (_, provide) => {
  it('a SIGKILL in the middle of many flows loses no acknowledged step, and the resume runs no committed step again', async () => {
    const provided = provide();
    const dir = mkdtempSync(join(tmpdir(), 'statecrew-crash-'));
    const files = { log: join(dir, 'steps.log'), acks: join(dir, 'acks.log') };
    writeFileSync(files.log, '');
    writeFileSync(files.acks, '');
    try {
      const first = child(provided.spec, files, 'kickoff');
      await untilLines(files.log, KILL_AT, first.exited);
      first.proc.kill('SIGKILL');
      const [, signal] = await first.exited;
      expect(signal, first.output().stderr).toBe('SIGKILL');

      const before = await storedSteps(provided.spec);
      const committed = [...before.values()].reduce((n, steps) => n + steps.size, 0);
      // Killed in the middle: some steps committed, not all of them.
      expect(committed).toBeGreaterThan(0);
      expect(committed).toBeLessThan(FLOWS * STEPS);
      // Every commit the store acknowledged is there.
      for (const line of lines(files.acks)) {
        const [run, ...keys] = line.split(' ');
        for (const key of keys.filter((k) => k.startsWith('step:'))) {
          expect(before.get(run as string)?.has(key), `${run} ${key}`).toBe(true);
        }
      }
      const ranBefore = lines(files.log).length;

      const second = child(provided.spec, files, 'resume');
      const [code] = await second.exited;
      const { stdout, stderr } = second.output();
      expect(code, stderr).toBe(0);
      const settled = JSON.parse(stdout.trim().split('\n').at(-1) as string) as {
        statuses: Record<string, string>;
      };
      expect(Object.values(settled.statuses)).toEqual(Array(FLOWS).fill('completed'));

      const runs = lines(files.log).map((line) => line.trim());
      const times = new Map<string, number>();
      for (const line of runs) times.set(line, (times.get(line) ?? 0) + 1);
      const after = await storedSteps(provided.spec);
      for (let k = 0; k < FLOWS; k += 1) {
        const run = `run-${k}`;
        for (let i = 0; i < STEPS; i += 1) {
          const key = `step:s${i}`;
          // Stored once, with its own output.
          expect(after.get(run)?.get(key), `${run} ${key}`).toEqual([`out ${run} ${i}`]);
          const ran = times.get(`${run} s${i}`) ?? 0;
          if (before.get(run)?.has(key)) expect(ran, `${run} s${i} committed before the kill`).toBe(1);
          else expect(ran, `${run} s${i}`).toBeGreaterThanOrEqual(1);
          expect(ran).toBeLessThanOrEqual(2);
        }
        expect(after.get(run)?.size).toBe(STEPS);
      }
      expect(runs.length).toBeGreaterThan(ranBefore);
    } finally {
      await provided.cleanup();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);
});
