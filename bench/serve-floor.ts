/**
 * Runs over HTTP against the same runs in process: a 3-task crew (instant model) on a SQLite file,
 * RUNS runs at C concurrent clients (C = 1, 10, 50), in three ways, alternated run by run:
 *   inproc  in the server's own process, `crew.run` with the store and options the server uses
 *           (`events: 'store'`, `stream: true`), C loops each awaiting its run's end;
 *   floor   the least HTTP can add: C clients each sending `POST /run` to a bare Hono app in the
 *           server's process (no statecrew server), which runs the crew as `inproc` does and answers
 *           its status once it ended; the next once answered;
 *   raw     the same on node:http alone (no Hono): the floor of any Node server here;
 *   wait    C clients each sending `POST /runs/wait` (the run to its end: the server answers once it
 *           settled) and the next once answered;
 *   post    C clients each sending `POST /runs` (answered once the run holds its id) and the next at
 *           once; the batch ends when `GET /runs?status=running` lists none.
 * Runs per second (RUNS / wall time to the last run's end), each request's latency p50/p99/max
 * (in process: each run's, from `run` to its result), and the CPU time per run of the server's process
 * and of this one (the clients'), read around each batch.
 * The server is a child process per build and repetition (`bench/serve-floor-server.ts`, a fresh
 * SQLite file in a temp folder); the clients are `fetch` in this process. Builds are alternated
 * repetition by repetition, modes within each; a warm-up batch of each mode runs first.
 *
 *   npm run build && node --import tsx bench/serve-floor.ts [REPS=3] [RUNS=300]
 *     [--builds=dist,.scratch/base] [--clients=1,10,50] [--modes=inproc,raw,floor,wait,post] [--prof=folder]
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const positional = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const option = (name: string, fallback: string) =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback;
const REPS = Number(positional[0] ?? '3');
const RUNS = Number(positional[1] ?? '300');
const BUILDS = option('builds', 'dist').split(',');
const CLIENTS = option('clients', '1,10,50').split(',').map(Number);
const ALL_MODES = ['inproc', 'raw', 'floor', 'wait', 'post'] as const;
type Mode = (typeof ALL_MODES)[number];
const MODES = option('modes', ALL_MODES.join(',')).split(',') as Mode[];
/** A folder for the server's CPU profile (`--cpu-prof`), when given. */
const PROFILE = option('prof', '');
const SERVER = fileURLToPath(new URL('./serve-floor-server.ts', import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'statecrew-serve-floor-'));

interface Server {
  url: string;
  /** The bare Hono app beside the server, whose `POST /run` runs the crew in process and answers. */
  floorUrl: string;
  /** The same floor on node:http alone, without Hono. */
  rawUrl: string;
  ask<T>(command: object, answer: string): Promise<T>;
  close(): Promise<void>;
}

async function startServer(build: string, file: string): Promise<Server> {
  const child: ChildProcess = spawn(
    process.execPath,
    [...(PROFILE === '' ? [] : ['--cpu-prof', `--cpu-prof-dir=${PROFILE}`]), '--import', 'tsx', SERVER],
    {
      env: { ...process.env, BUILD: resolve(build), STORE: file },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    },
  );
  const next = <T>(type: string) =>
    new Promise<T>((done) => {
      const on = (message: { type: string }) => {
        if (message.type !== type) return;
        child.off('message', on);
        done(message as T);
      };
      child.on('message', on);
    });
  const { url, floorUrl, rawUrl } = await next<{ url: string; floorUrl: string; rawUrl: string }>('ready');
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  return {
    url,
    floorUrl,
    rawUrl,
    ask: <T>(command: object, answer: string) => {
      const got = next<T>(answer);
      child.send(command);
      return got;
    },
    close: async () => {
      child.send({ type: 'close' });
      await exited;
    },
  };
}

interface Batch {
  ms: number;
  latencies: number[];
  failed: number;
}

/** A batch with the CPU time per run it cost the server's process and this (the clients') process, in µs. */
interface Measured extends Batch {
  serverCpuUs: number;
  clientCpuUs: number;
}

/** The CPU time the process has used so far, in ms. */
const ownCpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

/** `batch`, with the CPU time it cost each process. */
async function measured(server: Server, mode: Mode, clients: number): Promise<Measured> {
  const serverBefore = (await server.ask<{ ms: number }>({ type: 'cpu' }, 'cpu')).ms;
  const clientBefore = ownCpuMs();
  const b = await batch(server, mode, clients);
  const clientCpuUs = ((ownCpuMs() - clientBefore) / RUNS) * 1000;
  const serverCpuUs =
    (((await server.ask<{ ms: number }>({ type: 'cpu' }, 'cpu')).ms - serverBefore) / RUNS) * 1000;
  return { ...b, serverCpuUs, clientCpuUs };
}

const JSON_HEADERS = { 'content-type': 'application/json' };
const BODY = JSON.stringify({ definition: 'trio', inputs: {} });

/** RUNS requests to `path`, `clients` at a time; a request's failure is an answer other than `ok`. */
async function requests(
  url: string,
  path: string,
  clients: number,
  ok: (status: number, body: { status?: string }) => boolean,
): Promise<Batch> {
  const latencies: number[] = [];
  let next = 0;
  let failed = 0;
  const lane = async () => {
    while (next < RUNS) {
      next += 1;
      const sent = performance.now();
      const response = await fetch(`${url}${path}`, { method: 'POST', headers: JSON_HEADERS, body: BODY });
      const body = (await response.json()) as { status?: string };
      latencies.push(performance.now() - sent);
      if (!ok(response.status, body)) failed += 1;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: clients }, lane));
  return { ms: performance.now() - started, latencies, failed };
}

/** Resolves once the server lists no running run. */
async function settled(url: string): Promise<void> {
  for (;;) {
    const page = (await (await fetch(`${url}/runs?status=running&limit=1`)).json()) as { runs: unknown[] };
    if (page.runs.length === 0) return;
    await new Promise((done) => setTimeout(done, 5));
  }
}

async function batch(server: Server, mode: Mode, clients: number): Promise<Batch> {
  if (mode === 'inproc') {
    return server.ask<Batch>({ type: 'inproc', runs: RUNS, concurrency: clients }, 'inproc');
  }
  if (mode === 'raw')
    return requests(server.rawUrl, '/run', clients, (s, b) => s === 200 && b.status === 'completed');
  if (mode === 'floor')
    return requests(server.floorUrl, '/run', clients, (s, b) => s === 200 && b.status === 'completed');
  if (mode === 'wait')
    return requests(server.url, '/runs/wait', clients, (s, b) => s === 200 && b.status === 'completed');
  const started = performance.now();
  const posted = await requests(server.url, '/runs', clients, (s) => s === 202);
  await settled(server.url);
  return { ...posted, ms: performance.now() - started };
}

const quantile = (xs: number[], q: number) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
};
const median = (xs: number[]) => quantile(xs, 0.5);
const range = (xs: number[], digits = 0) =>
  `${median(xs).toFixed(digits)} [${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)}]`;

/** Per build, mode and clients: each repetition's runs/s, ratio to inproc, p50, p99, max; loads. */
const results = new Map<
  string,
  {
    rate: number[];
    ratio: number[];
    p50: number[];
    p99: number[];
    max: number[];
    serverCpu: number[];
    clientCpu: number[];
  }
>();
const stalls = new Map<string, number[]>();
const loads: number[] = [];
const keyOf = (build: string, mode: Mode, clients: number) => `${build} ${mode} c=${clients}`;

for (let rep = 0; rep < REPS; rep += 1) {
  const order = rep % 2 === 0 ? BUILDS : [...BUILDS].reverse();
  for (const build of order) {
    const server = await startServer(build, join(root, `${rep}-${BUILDS.indexOf(build)}.db`));
    for (const mode of MODES) await batch(server, mode, 10);
    await server.ask({ type: 'stall' }, 'stall');
    for (const clients of CLIENTS) {
      const rates = new Map<Mode, number>();
      for (const mode of MODES) {
        const b = await measured(server, mode, clients);
        if (b.failed > 0) console.log(`  ${keyOf(build, mode, clients)}: ${b.failed} failed`);
        const rate = (RUNS / b.ms) * 1000;
        rates.set(mode, rate);
        const entry = results.get(keyOf(build, mode, clients)) ?? {
          rate: [],
          ratio: [],
          p50: [],
          p99: [],
          max: [],
          serverCpu: [],
          clientCpu: [],
        };
        entry.serverCpu.push(b.serverCpuUs);
        entry.clientCpu.push(b.clientCpuUs);
        entry.rate.push(rate);
        entry.ratio.push(rate / (rates.get('inproc') ?? rate));
        if (b.latencies.length > 0) {
          entry.p50.push(quantile(b.latencies, 0.5));
          entry.p99.push(quantile(b.latencies, 0.99));
          entry.max.push(Math.max(...b.latencies));
        }
        results.set(keyOf(build, mode, clients), entry);
      }
    }
    const { ms } = await server.ask<{ ms: number }>({ type: 'stall' }, 'stall');
    stalls.set(build, [...(stalls.get(build) ?? []), ms]);
    loads.push(loadavg()[0] ?? 0);
    await server.close();
    console.log(
      `rep ${rep + 1} ${build}: load ${loadavg()[0]?.toFixed(2)}, longest stall ${ms.toFixed(0)} ms`,
    );
  }
}
rmSync(root, { recursive: true, force: true });

console.log(`\n${RUNS} runs per batch, ${REPS} repetitions; load ${range(loads, 1)}`);
console.log(
  'build mode clients | runs/s | ×inproc | p50 ms | p99 ms | max ms | server CPU µs/run | client CPU µs/run',
);
for (const [key, r] of results) {
  const lat = r.p50.length === 0 ? '— | — | —' : `${range(r.p50, 1)} | ${range(r.p99, 1)} | ${range(r.max)}`;
  const cpu = `${range(r.serverCpu)} | ${range(r.clientCpu)}`;
  console.log(`${key} | ${range(r.rate)} | ${range(r.ratio, 2)} | ${lat} | ${cpu}`);
}
for (const [build, ms] of stalls) console.log(`${build}: server's longest stall ${range(ms)} ms`);
