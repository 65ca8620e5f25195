import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFlow, type Store } from '../../src/index.js';
import { type ProvidedStore, services, storeKinds } from '../durable/store-specs.js';
import { openStore, type StoreSpec } from '../fixtures/durable/stores.js';

const script = fileURLToPath(new URL('../fixtures/durable/thread-kickoff.ts', import.meta.url));
if (!services) console.log('PostgreSQL and Redis cases skipped: STATECREW_NO_SERVICES=1');

type Line = Record<string, unknown>;

/** A process of `thread-kickoff.ts` on a store: kicks a chat flow off on a thread when told. */
class ThreadChild {
  readonly #proc: ChildProcessWithoutNullStreams;
  readonly #lines: Line[] = [];
  readonly #waiters: (() => void)[] = [];
  #stderr = '';
  readonly exited: Promise<void>;

  constructor(spec: StoreSpec, thread: string) {
    this.#proc = spawn(process.execPath, ['--import', 'tsx', script, JSON.stringify(spec), thread]);
    let buffer = '';
    this.#proc.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      for (let at = buffer.indexOf('\n'); at >= 0; at = buffer.indexOf('\n')) {
        const line = buffer.slice(0, at);
        buffer = buffer.slice(at + 1);
        if (line.startsWith('{')) this.#lines.push(JSON.parse(line) as Line);
      }
      for (const wake of this.#waiters.splice(0)) wake();
    });
    this.#proc.stderr.on('data', (chunk: Buffer) => {
      this.#stderr += chunk.toString();
    });
    this.exited = new Promise((resolve) => this.#proc.on('exit', () => resolve()));
    void this.exited.then(() => {
      for (const wake of this.#waiters.splice(0)) wake();
    });
  }

  /** The first line `match` accepts, printed so far or later; rejects if the child exits first. */
  async when(match: (line: Line) => boolean): Promise<Line> {
    for (;;) {
      const found = this.#lines.find(match);
      if (found !== undefined) return found;
      if (this.#proc.exitCode !== null || this.#proc.signalCode !== null) {
        throw new Error(`child ${this.#proc.pid} exited: ${this.#stderr}`);
      }
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
    }
  }

  send(command: 'go' | 'release' | 'exit'): void {
    this.#proc.stdin.write(`${command}\n`);
  }

  /** The kickoff's end: a line with `ok`. */
  ended(): Promise<Line> {
    return this.when((line) => 'ok' in line);
  }

  async close(): Promise<void> {
    this.send('exit');
    await this.exited;
  }
}

for (const [kind, provide] of storeKinds()) {
  describe(`a thread kicked off from two processes at once on ${kind}`, () => {
    let provided: ProvidedStore;
    let store: Store;
    let children: ThreadChild[] = [];

    beforeAll(async () => {
      provided = provide();
      store = await openStore(provided.spec);
    }, 60_000);

    afterAll(async () => {
      await Promise.all(children.map((child) => child.close()));
      await store?.close();
      await provided?.cleanup();
    });

    it('runs one kickoff, refuses the other (thread_busy), and takes the next once the first settled', async () => {
      children = [new ThreadChild(provided.spec, 'chat-42'), new ThreadChild(provided.spec, 'chat-42')];
      await Promise.all(children.map((child) => child.when((line) => line.event === 'ready')));
      // Sent in one turn of the event loop: both processes take the thread at the same moment.
      for (const child of children) child.send('go');
      const refused = await Promise.race(children.map((child) => child.ended().then(() => child)));
      const loser = await refused.ended();
      expect(loser).toMatchObject({ ok: false, code: 'thread_busy', details: { thread: 'chat-42' } });
      const winner = children.find((child) => child !== refused) as ThreadChild;
      const running = await winner.when((line) => line.event === 'running');
      expect(['running', 'starting']).toContain((loser.details as { status: string }).status);
      expect((loser.details as { runId: string }).runId).toBe(running.id);
      winner.send('release');
      expect(await winner.ended()).toMatchObject({ ok: true, id: running.id, status: 'completed', turns: 1 });
      // The next kickoff on the thread, here, goes on from the winner's state.
      const flow = createFlow({ name: 'chat', store, initialState: { turns: 0 } }).start(
        'reply',
        ({ state }) => {
          state.turns += 1;
          return `turn ${state.turns}`;
        },
      );
      const next = await flow.kickoff({ thread: 'chat-42' });
      expect(next.state.turns).toBe(2);
      expect((await store.listRuns({ thread: 'chat-42' })).map((h) => h.id)).toEqual([running.id, next.id]);
    }, 60_000);
  });
}
