import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll } from 'vitest';
import type { Store } from '../../src/index.js';
import { openStore, type StoreSpec } from '../fixtures/durable/stores.js';
import type { ProvidedStore } from './store-specs.js';

const script = fileURLToPath(new URL('../fixtures/durable/child.ts', import.meta.url));

/** A line a child printed: a reply (with its `seq`) or an event. */
export type ChildLine = Record<string, unknown> & { seq?: number; event?: string };

/** What a child answers to a command. */
export interface Reply {
  ok: boolean;
  code?: string;
  message?: string;
  status?: string;
  [key: string]: unknown;
}

/**
 * A durability test's child process (`test/fixtures/durable/child.ts`) on a store: it takes commands
 * and answers them; the test can wait for what it prints and kill it.
 */
export class Child {
  readonly #proc: ChildProcessWithoutNullStreams;
  readonly #lines: ChildLine[] = [];
  readonly #waiters: (() => void)[] = [];
  #seq = 0;
  #stderr = '';
  readonly exited: Promise<void>;

  private constructor(spec: StoreSpec, log: string) {
    this.#proc = spawn(process.execPath, ['--import', 'tsx', script, JSON.stringify(spec), log], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let buffer = '';
    this.#proc.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      let newline = buffer.indexOf('\n');
      while (newline >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        if (line.startsWith('{')) this.#lines.push(JSON.parse(line) as ChildLine);
        for (const wake of this.#waiters.splice(0)) wake();
        newline = buffer.indexOf('\n');
      }
    });
    this.#proc.stderr.on('data', (chunk: Buffer) => {
      this.#stderr += chunk.toString();
    });
    this.exited = new Promise((resolve) => this.#proc.on('exit', () => resolve()));
    void this.exited.then(() => {
      for (const wake of this.#waiters.splice(0)) wake();
    });
  }

  /** Starts a child on `spec`, appending its runs to `log`; resolves once it takes commands. */
  static async start(spec: StoreSpec, log: string): Promise<Child> {
    const child = new Child(spec, log);
    await child.when((line) => line.event === 'ready');
    return child;
  }

  /** Resolves with the first line `match` accepts, printed so far or later; rejects if the child exits first. */
  async when(match: (line: ChildLine) => boolean): Promise<ChildLine> {
    for (;;) {
      const found = this.#lines.find(match);
      if (found !== undefined) return found;
      if (this.#proc.exitCode !== null || this.#proc.signalCode !== null) {
        throw new Error(`child ${this.#proc.pid} exited: ${this.#stderr}`);
      }
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
    }
  }

  /** Sends a command; resolves with the child's reply. */
  async send(command: Record<string, unknown>): Promise<Reply> {
    this.#seq += 1;
    const seq = this.#seq;
    this.#proc.stdin.write(`${JSON.stringify({ ...command, seq })}\n`);
    return (await this.when((line) => line.seq === seq)) as unknown as Reply;
  }

  /** Kills the child with SIGKILL (a crash), resolving once it is gone. */
  async kill(): Promise<void> {
    this.#proc.kill('SIGKILL');
    await this.exited;
  }

  /** Ends the child's input, resolving once it exited. */
  async close(): Promise<void> {
    this.#proc.stdin.end();
    this.#proc.kill('SIGTERM');
    await this.exited;
  }
}

/** How many times each line of a run log appears. */
export function countRuns(log: string): Map<string, number> {
  const counts = new Map<string, number>();
  let text = '';
  try {
    text = readFileSync(log, 'utf8');
  } catch {
    return counts;
  }
  for (const line of text.split('\n').filter(Boolean)) counts.set(line, (counts.get(line) ?? 0) + 1);
  return counts;
}

/**
 * A temporary folder for one test file's run logs, removed after its tests, and a function that
 * names a new log in it per call (`log-1`, `log-2`, …).
 */
export function runLogs(prefix: string): () => string {
  const root = mkdtempSync(join(tmpdir(), prefix));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  let logs = 0;
  return () => {
    logs += 1;
    return join(root, `log-${logs}`);
  };
}

/** A provided store, opened in this process, and two child processes over it. */
export interface StoreAndChildren {
  provided: ProvidedStore;
  store: Store;
  second: Child;
  third: Child;
}

/**
 * For the enclosing describe block: a store of the kind `provide` makes, opened here, and two child
 * processes over it logging to `log` (`made` hears of them); closed and cleaned up after the block.
 */
export function storeAndTwoChildren(
  provide: () => ProvidedStore,
  log: string,
  made: (parts: StoreAndChildren) => void,
): void {
  let parts: Partial<StoreAndChildren> = {};
  beforeAll(async () => {
    const provided = provide();
    parts = { provided };
    parts.store = await openStore(provided.spec);
    [parts.second, parts.third] = await Promise.all([
      Child.start(provided.spec, log),
      Child.start(provided.spec, log),
    ]);
    made(parts as StoreAndChildren);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([parts.second?.close(), parts.third?.close()]);
    await parts.store?.close();
    await parts.provided?.cleanup();
  });
}
