/**
 * The server process of `bench/serve-load.ts`: `statecrew/serve` (the built package) over a SQLite
 * file (`STORE=sqlite:<path>`) or PostgreSQL (`STORE=postgres:<schema>`), listening on a free port of
 * 127.0.0.1. It serves two crews:
 *   stream  a sequential crew of `TASKS` tasks; its first task waits until the parent says `release`
 *           (so event-stream clients attach while the run is live), every later one answers after
 *           `PACE_MS` on a timer.
 *   small   one task whose model answers at once.
 * Over IPC it says `{ type: 'ready', url }`, and answers `arm` (the next run of `stream` waits again),
 * `release`, `memory` (its RSS and V8 heap in use now, after a forced GC when asked; the highest RSS
 * sampled since the last `memory`, and the longest its event loop was held meanwhile) and `close`.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { statecrew } from './built.js';

const { createServer, listen } = (await import(
  new URL('../dist/serve/index.js', import.meta.url).href
)) as typeof import('../src/serve/index.js');
const { createScriptedModel } = (await import(
  new URL('../dist/testing.js', import.meta.url).href
)) as typeof import('../src/testing.js');
const { Agent, Crew, Task, SqliteStore } = statecrew;
type Store = InstanceType<typeof SqliteStore>;

const TASKS = Number(process.env.TASKS ?? '100');
const PACE_MS = Number(process.env.PACE_MS ?? '20');
const SAMPLE_MS = 20;

/** A gate the first task of `stream` waits at; `arm` closes a new one. */
let release: () => void = () => {};
let gate = Promise.resolve();
const arm = () => {
  gate = new Promise<void>((resolve) => (release = resolve));
};

const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function streamCrew() {
  const opener = new Agent({
    role: 'Opener',
    llm: createScriptedModel(() => async () => {
      await gate;
      return 'opened';
    }),
  });
  const worker = new Agent({
    role: 'Worker',
    llm: createScriptedModel((_request, call) => async () => {
      await wait(PACE_MS);
      return `step ${call} done`;
    }),
  });
  const tasks = Array.from(
    { length: TASKS },
    (_, i) =>
      new Task({ name: `t${i}`, description: `step ${i} of ${TASKS}`, agent: i === 0 ? opener : worker }),
  );
  return new Crew({ name: 'stream', tasks });
}

function smallCrew() {
  // A plain policy, not a scripted model: a scripted model keeps every request it was asked, which
  // would count 1,000 runs' prompts as server memory.
  const agent = new Agent({ role: 'Clerk', llm: () => 'filed' });
  return new Crew({ name: 'small', tasks: [new Task({ name: 'file', description: 'file it', agent })] });
}

async function openStore(spec: string): Promise<Store> {
  if (spec.startsWith('sqlite:')) return new SqliteStore({ path: spec.slice('sqlite:'.length) });
  const { PostgresStore } = (await import(
    new URL('../dist/stores/postgres.js', import.meta.url).href
  )) as typeof import('../src/stores/postgres.js');
  const schema = spec.slice('postgres:'.length);
  const url = process.env.PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  return new PostgresStore({ connectionString: url, schema }) as unknown as Store;
}

if (process.env.STORE === undefined)
  throw new Error('STORE is unset: bench/serve-load.ts starts this process');
const store = await openStore(process.env.STORE);
const server = createServer({ crews: [streamCrew(), smallCrew()], store, insecureNoAuth: true });
const listening = await listen(server, { port: 0 });

const loopDelay = monitorEventLoopDelay({ resolution: 10 });
loopDelay.enable();
let peak = process.memoryUsage.rss();
const sampler = setInterval(() => {
  peak = Math.max(peak, process.memoryUsage.rss());
}, SAMPLE_MS);

/** Reports memory and the longest stall since the last report; a forced GC is not counted as a stall. */
async function reportMemory(gc: boolean): Promise<void> {
  const stallMs = loopDelay.max / 1e6;
  if (gc) {
    globalThis.gc?.();
    await wait(50);
  }
  const rss = process.memoryUsage.rss();
  const heap = process.memoryUsage().heapUsed;
  process.send?.({ type: 'memory', rss, peak: Math.max(peak, rss), heap, stallMs });
  peak = rss;
  loopDelay.reset();
}

type Command = { type: 'arm' | 'release' | 'close' } | { type: 'memory'; gc: boolean };

process.on('message', (command: Command) => {
  if (command.type === 'arm') arm();
  else if (command.type === 'release') release();
  else if (command.type === 'memory') void reportMemory(command.gc);
  else if (command.type === 'close') {
    clearInterval(sampler);
    release();
    void listening
      .close()
      .then(() => store.close())
      .finally(() => process.exit(0));
  }
});
process.send?.({ type: 'ready', url: listening.url });
