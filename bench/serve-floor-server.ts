/**
 * The server process of `bench/serve-floor.ts`: a build of statecrew (`BUILD`, a folder like `dist/`)
 * serving one crew, `trio` (three sequential tasks whose model answers at once), over a SQLite file
 * (`STORE`), listening on a free port of 127.0.0.1 with `createServer`'s defaults. Over IPC it says
 * `{ type: 'ready', url, floorUrl, rawUrl }` (`floorUrl`: a bare Hono app whose `POST /run` runs
 * `trio` in this process and answers its status, the floor of a served run; `rawUrl`: the same on
 * node:http alone), and answers:
 *   inproc   `{ runs, concurrency }`: the same crew run in this process as the server runs it (the
 *            same store, `events: 'store'`, `stream: true`), `concurrency` loops each awaiting its
 *            run's result before the next; answers `{ type: 'inproc', ms, failed, latencies }` (each
 *            run's time from `run` to its result).
 *   stall    the longest the event loop was held since the last `stall`, in ms.
 *   cpu      the CPU time this process has used so far (`process.cpuUsage`, user + system), in ms.
 *   close    closes the server and the store, and exits.
 */
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';

const BUILD = process.env.BUILD;
const STORE = process.env.STORE;
if (BUILD === undefined || STORE === undefined)
  throw new Error('BUILD or STORE is unset: bench/serve-floor.ts starts this process');
const built = (path: string) => pathToFileURL(`${BUILD}/${path}`).href;
const statecrew = (await import(built('index.js'))) as typeof import('../src/index.js');
const { createServer, listen } = (await import(
  built('serve/index.js')
)) as typeof import('../src/serve/index.js');
const { Agent, Crew, Task, SqliteStore } = statecrew;

const agent = new Agent({ role: 'Clerk', llm: () => 'filed' });
const trio = new Crew({
  name: 'trio',
  tasks: ['read', 'check', 'file'].map((name) => new Task({ name, description: `${name} it`, agent })),
});
const store = new SqliteStore({ path: STORE });
const server = createServer({ crews: [trio], store, insecureNoAuth: true });
const listening = await listen(server, { port: 0 });
const loopDelay = monitorEventLoopDelay({ resolution: 10 });
loopDelay.enable();

/** `runs` runs of `trio` in this process, `concurrency` at a time, as the server starts them. */
async function inProcess(
  runs: number,
  concurrency: number,
): Promise<{ ms: number; failed: number; latencies: number[] }> {
  let next = 0;
  let failed = 0;
  const latencies: number[] = [];
  const lane = async () => {
    while (next < runs) {
      next += 1;
      const sent = performance.now();
      const run = trio.run({ inputs: {}, store, events: 'store', stream: true });
      const result = await run.result;
      latencies.push(performance.now() - sent);
      if (result.status !== 'completed') failed += 1;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, lane));
  return { ms: performance.now() - started, failed, latencies };
}

type Command =
  | { type: 'inproc'; runs: number; concurrency: number }
  | { type: 'stall' }
  | { type: 'cpu' }
  | { type: 'close' };

process.on('message', (command: Command) => {
  if (command.type === 'inproc') {
    void inProcess(command.runs, command.concurrency).then((r) => process.send?.({ type: 'inproc', ...r }));
  } else if (command.type === 'stall') {
    process.send?.({ type: 'stall', ms: loopDelay.max / 1e6 });
    loopDelay.reset();
  } else if (command.type === 'cpu') {
    const { user, system } = process.cpuUsage();
    process.send?.({ type: 'cpu', ms: (user + system) / 1000 });
  } else if (command.type === 'close') {
    void listening
      .close()
      .then(() => store.close())
      .finally(() => process.exit(0));
  }
});
/**
 * The floor of a served run: a bare Hono app on `@hono/node-server` (no statecrew server) whose one
 * route reads the body, runs `trio` in this process as `inProcess` does and answers its status.
 */
const bare = new Hono().post('/run', async (c) => {
  await c.req.json();
  const result = await trio.run({ inputs: {}, store, events: 'store', stream: true }).result;
  return c.json({ status: result.status });
});
const floorUrl = await new Promise<string>((done) => {
  serve({ fetch: bare.fetch, port: 0, hostname: '127.0.0.1' }, (info) =>
    done(`http://127.0.0.1:${info.port}`),
  );
});

/** Below that floor: node:http alone (no Hono), reading the body, running `trio`, answering its status. */
const raw = createHttpServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    JSON.parse(Buffer.concat(chunks).toString('utf8'));
    void trio.run({ inputs: {}, store, events: 'store', stream: true }).result.then((result) => {
      const body = JSON.stringify({ status: result.status });
      response.writeHead(200, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
      });
      response.end(body);
    });
  });
});
raw.keepAliveTimeout = 65_000;
await new Promise<void>((done) => raw.listen(0, '127.0.0.1', done));
const rawUrl = `http://127.0.0.1:${(raw.address() as AddressInfo).port}`;

process.send?.({ type: 'ready', url: listening.url, floorUrl, rawUrl });
