import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createRunner, type RunLease, type Store } from '../../src/index.js';
import { encodeRunValue } from '../../src/runtime/durable/codec.js';
import { pruneStore } from '../../src/stores/store.js';
import { cli } from '../cli/cli-helpers.js';
import { heldFlow } from '../fixtures/durable/held-flow.js';
import { openStore, type StoreSpec } from '../fixtures/durable/stores.js';
import { countRuns, runLogs } from './processes.js';
import { services, storeKinds } from './store-specs.js';

const freshLog = runLogs('statecrew-lease-safety-');
if (!services) console.log('PostgreSQL and Redis cases skipped: STATECREW_NO_SERVICES=1');
const script = fileURLToPath(new URL('../fixtures/durable/held-flow.ts', import.meta.url));

/** A run of the held flow in a process of its own, holding its lease while its step `hold` waits. */
class HeldRun {
  readonly #proc: ChildProcessWithoutNullStreams;
  readonly #lines: Record<string, unknown>[] = [];
  readonly #waiters: (() => void)[] = [];
  #stderr = '';

  constructor(spec: StoreSpec, log: string, id: string, leaseMs: number) {
    const args = ['--import', 'tsx', script, JSON.stringify(spec), log, id, String(leaseMs)];
    this.#proc = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    let buffer = '';
    this.#proc.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      const lines = buffer.split('\n');
      buffer = lines.pop() ?? '';
      for (const line of lines.filter((l) => l.startsWith('{'))) this.#lines.push(JSON.parse(line));
      for (const wake of this.#waiters.splice(0)) wake();
    });
    this.#proc.stderr.on('data', (chunk: Buffer) => {
      this.#stderr += chunk.toString();
    });
    this.#proc.on('exit', () => {
      for (const wake of this.#waiters.splice(0)) wake();
    });
  }

  /** Resolves with the first line printed with `event`; rejects if the process exits first. */
  async when(event: string): Promise<Record<string, unknown>> {
    for (;;) {
      const found = this.#lines.find((line) => line.event === event);
      if (found !== undefined) return found;
      if (this.#proc.exitCode !== null) throw new Error(`held run exited: ${this.#stderr}`);
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
    }
  }

  /** Lets the held step go on; resolves with how the run ended (`settled` or `failed`). */
  async finish(): Promise<Record<string, unknown>> {
    this.#proc.stdin.write('go\n');
    const ended = await Promise.race([this.when('settled'), this.when('failed')]);
    await new Promise<void>((resolve) =>
      this.#proc.exitCode !== null ? resolve() : this.#proc.on('exit', () => resolve()),
    );
    return ended;
  }

  kill(): void {
    this.#proc.kill('SIGKILL');
  }
}

/** The `--store` value naming the store of `spec`. */
function storeArg(spec: StoreSpec): string {
  if (spec.kind === 'sqlite') return `sqlite:${spec.path}`;
  if (spec.kind === 'postgres') return `${spec.url}?schema=${spec.schema}`;
  return `${spec.url}?prefix=${spec.prefix}`;
}

/** Opens the store of `spec` here, runs `test` with it, and closes it and cleans up after. */
async function withStore(
  provide: () => { spec: StoreSpec; cleanup(): Promise<void> },
  test: (spec: StoreSpec, store: Store) => Promise<void>,
): Promise<void> {
  const provided = provide();
  const store = await openStore(provided.spec);
  try {
    await test(provided.spec, store);
  } finally {
    await store.close();
    await provided.cleanup();
  }
}

for (const [kind, provide] of storeKinds()) {
  describe(`a live run on ${kind}`, () => {
    it('is never pruned while it runs: prune and runs --prune keep it and say so, and the run completes', async () => {
      await withStore(provide, async (spec, store) => {
        const log = freshLog();
        const run = new HeldRun(spec, log, 'held-1', 1000);
        try {
          await run.when('holding');
          const future = Date.now() + 60_000;
          expect(await store.prune({ olderThan: future, statuses: ['running'] })).toEqual([]);
          expect(await pruneStore(store, { olderThan: future, statuses: ['running'] })).toEqual({
            pruned: [],
            kept: ['held-1'],
          });
          // `--prune 1s` matches a run last changed over a second ago.
          await expect
            .poll(async () => Date.now() - ((await store.readRun('held-1'))?.updatedAt ?? Date.now()), {
              timeout: 30_000,
            })
            .toBeGreaterThan(1000);
          const cwd = process.cwd();
          const args = ['runs', '--prune', '1s', '--status', 'running', '--store', storeArg(spec)];
          const ran = await cli(args, { cwd });
          expect(ran.stderr).toBe('');
          expect(ran.stdout).toBe('pruned 0 runs\nkept 1 live run: held-1\n');
          const json = await cli([...args, '--json'], { cwd });
          expect(JSON.parse(json.stdout)).toEqual({ pruned: [], kept: ['held-1'] });
          expect(await run.finish()).toEqual({ event: 'settled', status: 'completed' });
        } finally {
          run.kill();
        }
        expect(['before', 'hold', 'after'].map((s) => countRuns(log).get(`${s} held-1`))).toEqual([1, 1, 1]);
        expect(await store.prune({ olderThan: Date.now() + 60_000, statuses: ['completed'] })).toEqual([
          'held-1',
        ]);
      });
    }, 120_000);

    it('is not taken over by a runner whose clock is 5 s or 20 s ahead: its held step runs once', async () => {
      await withStore(provide, async (spec, store) => {
        const log = freshLog();
        const run = new HeldRun(spec, log, 'held-2', 1000);
        try {
          await run.when('holding');
          for (const skew of [5_000, 20_000]) {
            const clock = () => Date.now() + skew;
            const flow = heldFlow(store, log, async () => {});
            const runner = createRunner({ store, flows: [flow], clock, leaseMs: 1000 });
            const report = await runner.recover();
            await runner.close();
            expect(report).toMatchObject({ resumed: [], failed: [] });
            await expect(flow.resume('held-2', undefined, { clock, leaseMs: 1000 })).rejects.toMatchObject({
              code: 'run_locked',
            });
          }
          expect(await run.finish()).toEqual({ event: 'settled', status: 'completed' });
        } finally {
          run.kill();
        }
        expect(['before', 'hold', 'after'].map((s) => countRuns(log).get(`${s} held-2`))).toEqual([1, 1, 1]);
      });
    }, 120_000);

    it('of another host is judged by the store’s clock: a runner 20 s ahead leaves it, and the store refuses its claim', async () => {
      await withStore(provide, async (_spec, store) => {
        const log = freshLog();
        // Its owner's clock is right; the lease lasts 10 s from now on the store's clock.
        const lease: RunLease = {
          owner: 'far:7',
          token: 'far',
          expiresAt: Date.now() + 10_000,
          ttlMs: 10_000,
          host: 'far-host',
          pid: 7,
          thread: 0,
        };
        const data = { inputs: encodeRunValue({ id: 'far-1' }) };
        const now = Date.now();
        const head = { id: 'far-1', kind: 'flow' as const, name: 'held', status: 'running' as const };
        await store.createRun({ ...head, version: 1, lease, data, createdAt: now, updatedAt: now });
        const clock = () => Date.now() + 20_000;
        const runner = createRunner({ store, flows: [heldFlow(store, log, async () => {})], clock });
        expect(await runner.recover()).toMatchObject({ resumed: [], failed: [] });
        await runner.close();
        const stored = await store.readRun('far-1');
        expect(stored?.lease?.remainingMs).toBeGreaterThan(0);
        const thief = { ...lease, owner: 'thief:1', token: 'thief', expiresAt: clock() + 10_000 };
        expect(await store.claimRun('far-1', 1, { status: 'running', lease: thief })).toBe(false);
        expect(await store.pruneRuns?.({ olderThan: clock(), statuses: ['running'] })).toEqual({
          pruned: [],
          kept: ['far-1'],
        });
        expect(countRuns(log).get('hold far-1')).toBeUndefined();
      });
    }, 60_000);
  });
}
