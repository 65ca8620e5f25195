/**
 * `statecrew/serve` under load, the server in a child process of its own (`bench/serve-load-server.ts`,
 * the built package) so that its RSS is apart from the clients':
 *   stream  one run of a sequential crew of TASKS tasks (each later task paced PACE_MS on a timer; the
 *           first held until every client is attached), CLIENTS clients on `GET /runs/:id/events`:
 *           messages delivered per second across clients, delivery latency (receive time − the event's
 *           own `at`) p50/p99 of the live events, every client checked to get every event once, in
 *           order; then CLIENTS late clients replaying the settled run from the store.
 *   runs    RUNS `POST /runs` of a one-task crew (instant model), CONCURRENCY at a time: submit latency,
 *           runs settled per second (polling `GET /runs?status=running`), every run checked completed.
 * Each phase gets a fresh server and store; the server's RSS is sampled every 20 ms (peak), and read
 * again after a forced GC once the phase is over (settled). On SQLite in a temp folder, and on
 * PostgreSQL when it answers on 127.0.0.1:5432 (user postgres, database test).
 *
 *   npm run build && node --import tsx bench/serve-load.ts [REPS=3] [CLIENTS=200] [RUNS=1000]
 *     [--tasks=100] [--pace=20] [--concurrency=50] [--no-postgres] [--only=stream|runs]
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { Socket } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  checkReads,
  compareCopies,
  readEventStream,
  SharedCopies,
  type StreamRead,
  submitRuns,
  wallMs,
} from './serve-load-clients.js';

if (!existsSync(new URL('../dist/serve/index.js', import.meta.url)))
  throw new Error('bench: dist/ is missing; run `npm run build` first');

const positional = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const flag = (name: string, fallback: number) =>
  Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
const REPS = Number(positional[0] ?? '3');
const CLIENTS = Number(positional[1] ?? '200');
const RUNS = Number(positional[2] ?? '1000');
const TASKS = flag('tasks', 100);
const PACE_MS = flag('pace', 20);
const CONCURRENCY = flag('concurrency', 50);
const PHASE_LIMIT_MS = 300_000;
const SERVER = fileURLToPath(new URL('./serve-load-server.ts', import.meta.url));
const PG_URL = 'postgres://postgres@127.0.0.1:5432/test';
const root = mkdtempSync(join(tmpdir(), 'statecrew-serve-load-'));
const MB = 1024 * 1024;

interface Memory {
  rss: number;
  peak: number;
  heap: number;
  /** The longest the server's event loop was held since the last reading, in ms. */
  stallMs: number;
}

/** A server process: its URL, and what it is told over IPC. */
interface Server {
  url: string;
  tell(type: 'arm' | 'release'): void;
  memory(gc: boolean): Promise<Memory>;
  close(): Promise<void>;
}

function startServer(store: string): Promise<Server> {
  const child: ChildProcess = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', SERVER], {
    env: { ...process.env, STORE: store, TASKS: String(TASKS), PACE_MS: String(PACE_MS), PG_URL },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const next = <T>(type: string) =>
    new Promise<T>((resolve) => {
      const on = (message: { type: string }) => {
        if (message.type !== type) return;
        child.off('message', on);
        resolve(message as T);
      };
      child.on('message', on);
    });
  return next<{ url: string }>('ready').then(({ url }) => ({
    url,
    tell: (type) => child.send({ type }),
    memory(gc) {
      const answer = next<Memory>('memory');
      child.send({ type: 'memory', gc });
      return answer;
    },
    close() {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.send({ type: 'close' });
      return exited;
    },
  }));
}

const getJson = async <T>(url: string): Promise<T> => (await (await fetch(url)).json()) as T;

/** Waits until the stored run `id` is no longer running. */
async function settled(url: string, id: string): Promise<void> {
  while ((await getJson<{ status: string }>(`${url}/runs/${id}`)).status === 'running')
    await new Promise((resolve) => setTimeout(resolve, 20));
}

/** Starts a run of `stream`, held at its first task until released. */
async function startHeldRun(server: Server): Promise<string> {
  server.tell('arm');
  const response = await fetch(`${server.url}/runs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ definition: 'stream', inputs: {} }),
  });
  if (response.status !== 202) throw new Error(`POST /runs answered ${response.status}`);
  return ((await response.json()) as { id: string }).id;
}

/** The `at` of event `seq` among the copies a group of readers got. */
const atOf = (copies: SharedCopies, seq: number) =>
  (JSON.parse(copies.first.get(seq) ?? '{"at":NaN}') as { at: number }).at;

/** How long the stream run takes with nobody watching, in ms: from its release to its last event. */
async function runAlone(server: Server): Promise<number> {
  const id = await startHeldRun(server);
  const releasedAt = Math.floor(wallMs());
  server.tell('release');
  await settled(server.url, id);
  const copies = new SharedCopies();
  await readEventStream(`${server.url}/runs/${id}/events`, {
    copies,
    liveFrom: () => Number.POSITIVE_INFINITY,
    signal: AbortSignal.timeout(PHASE_LIMIT_MS),
  });
  return atOf(copies, copies.first.size) - releasedAt;
}

const percentile = (sorted: ArrayLike<number>, p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? Number.NaN;
const sortNumbers = (xs: number[]) => Float64Array.from(xs).sort();

/** The stream phase: CLIENTS live clients on one run, then CLIENTS late ones replaying it. */
async function streamPhase(store: string): Promise<Record<string, number>> {
  const server = await startServer(store);
  try {
    const aloneMs = await runAlone(server);
    const before = await server.memory(true);
    const id = await startHeldRun(server);
    const url = `${server.url}/runs/${id}/events`;
    const signal = AbortSignal.timeout(PHASE_LIMIT_MS);
    const live = new SharedCopies();
    let attached = 0;
    let allAttached: () => void = () => {};
    const attachedAll = new Promise<void>((resolve) => (allAttached = resolve));
    const onFirst = () => {
      attached += 1;
      if (attached === CLIENTS) allAttached();
    };
    let liveFrom = Number.POSITIVE_INFINITY;
    const reading = Array.from({ length: CLIENTS }, () =>
      readEventStream(url, { copies: live, liveFrom: () => liveFrom, signal, onFirst }),
    );
    await Promise.race([attachedAll, Promise.all(reading)]);
    liveFrom = Math.floor(wallMs());
    server.tell('release');
    const reads = await Promise.all(reading);
    const liveMemory = await server.memory(false);
    const replay = await replayPhase(server, url);
    const after = await server.memory(true);
    // The run's events: the highest number any client got (each check then wants 1..count).
    const count = Math.max(0, ...live.first.keys(), ...replay.copies.first.keys());
    const liveCheck = checkReads(reads, count, live);
    const replayCheck = checkReads(replay.reads, count, replay.copies);
    for (const note of [...liveCheck.notes, ...replayCheck.notes]) process.stderr.write(`  ${note}\n`);
    const latencies = sortNumbers(reads.flatMap((r) => r.latencies));
    const livePart = liveStats(reads, liveFrom, latencies);
    return {
      events: count,
      aloneMs,
      watchedMs: atOf(live, count) - liveFrom,
      ...livePart,
      liveComplete: liveCheck.complete,
      liveProblems:
        liveCheck.failed + liveCheck.wrong + liveCheck.differing + compareCopies(live, replay.copies),
      attached,
      replayPerSecond: (count * CLIENTS) / (replay.ms / 1000),
      replayMs: replay.ms,
      replayComplete: replayCheck.complete,
      replayProblems: replayCheck.failed + replayCheck.wrong + replayCheck.differing,
      rssBefore: before.rss / MB,
      rssPeakLive: liveMemory.peak / MB,
      stallLive: liveMemory.stallMs,
      stallReplay: replay.memory.stallMs,
      rssPeakReplay: replay.memory.peak / MB,
      rssAfter: after.rss / MB,
      heapBefore: before.heap / MB,
      heapAfter: after.heap / MB,
    };
  } finally {
    await server.close();
  }
}

/** Delivery figures of the live clients: messages per second after the release, latency percentiles. */
function liveStats(reads: StreamRead[], liveFrom: number, latencies: Float64Array): Record<string, number> {
  const lastAt = Math.max(...reads.map((r) => r.lastAt));
  const messages = latencies.length;
  return {
    liveMs: lastAt - liveFrom,
    livePerSecond: messages / ((lastAt - liveFrom) / 1000),
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    max: latencies.at(-1) ?? Number.NaN,
  };
}

/** CLIENTS late clients replay the settled run at `url` from the store, all at once. */
async function replayPhase(server: Server, url: string) {
  await server.memory(false);
  const copies = new SharedCopies();
  const signal = AbortSignal.timeout(PHASE_LIMIT_MS);
  const started = performance.now();
  const reads = await Promise.all(
    Array.from({ length: CLIENTS }, () =>
      readEventStream(url, { copies, liveFrom: () => Number.POSITIVE_INFINITY, signal }),
    ),
  );
  const ms = performance.now() - started;
  return { reads, copies, ms, memory: await server.memory(false) };
}

/** The runs phase: RUNS submitted, CONCURRENCY at a time, then waited for until none runs. */
async function runsPhase(store: string): Promise<Record<string, number>> {
  const server = await startServer(store);
  try {
    const before = await server.memory(true);
    const started = performance.now();
    const submitted = await submitRuns(server.url, 'small', RUNS, CONCURRENCY);
    const submitMs = performance.now() - started;
    const running = () => getJson<{ runs: unknown[] }>(`${server.url}/runs?status=running&limit=1`);
    while ((await running()).runs.length > 0) await new Promise((resolve) => setTimeout(resolve, 20));
    const settledMs = performance.now() - started;
    const peak = await server.memory(false);
    const statuses = await statusCounts(server.url);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const after = await server.memory(true);
    const latencies = sortNumbers(submitted.map((s) => s.ms));
    return {
      accepted: submitted.filter((s) => s.status === 202).length,
      submitP50: percentile(latencies, 50),
      submitP99: percentile(latencies, 99),
      submitPerSecond: RUNS / (submitMs / 1000),
      settledPerSecond: RUNS / (settledMs / 1000),
      completed: statuses.completed ?? 0,
      rssBefore: before.rss / MB,
      rssPeak: peak.peak / MB,
      stall: peak.stallMs,
      rssAfter: after.rss / MB,
      heapBefore: before.heap / MB,
      heapAfter: after.heap / MB,
    };
  } finally {
    await server.close();
  }
}

/** How many stored runs of `small` have each status (every page of `GET /runs`). */
async function statusCounts(url: string): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  let cursor: string | null = null;
  do {
    const query: string = `definition=small&limit=200${cursor === null ? '' : `&cursor=${cursor}`}`;
    const page: { runs: { status: string }[]; nextCursor: string | null } = await getJson(
      `${url}/runs?${query}`,
    );
    for (const run of page.runs) counts[run.status] = (counts[run.status] ?? 0) + 1;
    cursor = page.nextCursor;
  } while (cursor !== null);
  return counts;
}

function reachable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (up: boolean) => {
      socket.destroy();
      resolve(up);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('error', () => done(false));
    socket.connect(port, '127.0.0.1', () => done(true));
  });
}

async function dropSchema(schema: string): Promise<void> {
  const pg = (await import('pg')).default;
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await client.end();
}

let serial = 0;
/** A fresh store spec of `kind`, and what removes it. */
function freshStore(kind: string): [string, () => Promise<void>] {
  serial += 1;
  if (kind === 'SQLite') return [`sqlite:${join(root, `load-${serial}.db`)}`, async () => {}];
  const schema = `statecrew_serve_load_${process.pid}_${serial}`;
  return [`postgres:${schema}`, () => dropSchema(schema)];
}

const fmt = (x: number, digits: number) =>
  x.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

/** A table cell: the median of the repetitions, and their range when there are several. */
function cell(samples: Record<string, number>[], key: string, digits: number): string {
  const xs = samples.map((s) => s[key] as number);
  const mid = fmt(median(xs), digits);
  if (xs.length === 1) return mid;
  return `${mid} (${fmt(Math.min(...xs), digits)}–${fmt(Math.max(...xs), digits)})`;
}

const STREAM_ROWS: [string, string, number][] = [
  ['events in the run', 'events', 0],
  ['the run with no client: release to its last event (ms)', 'aloneMs', 0],
  ['the run with the clients: release to its last event (ms)', 'watchedMs', 0],
  ['clients attached before the release', 'attached', 0],
  ['live: release to the last client’s last event (ms)', 'liveMs', 0],
  ['live: messages delivered per second, all clients', 'livePerSecond', 0],
  ['live: delivery latency p50 (ms)', 'p50', 1],
  ['live: delivery latency p99 (ms)', 'p99', 1],
  ['live: delivery latency max (ms)', 'max', 1],
  ['live: clients with every event once, in order', 'liveComplete', 0],
  ['live: problems (clients failed or wrong, events differing)', 'liveProblems', 0],
  ['replay: wall time, all clients (ms)', 'replayMs', 0],
  ['replay: messages per second, all clients', 'replayPerSecond', 0],
  ['replay: clients with every event once, in order', 'replayComplete', 0],
  ['replay: problems', 'replayProblems', 0],
  ['server event loop, longest stall, live (ms)', 'stallLive', 0],
  ['server event loop, longest stall, replay (ms)', 'stallReplay', 0],
  ['server RSS before (MB)', 'rssBefore', 0],
  ['server RSS peak, live (MB)', 'rssPeakLive', 0],
  ['server RSS peak, replay (MB)', 'rssPeakReplay', 0],
  ['server RSS after, GC (MB)', 'rssAfter', 0],
  ['server V8 heap in use before, GC (MB)', 'heapBefore', 1],
  ['server V8 heap in use after, GC (MB)', 'heapAfter', 1],
];

const RUNS_ROWS: [string, string, number][] = [
  ['accepted (202)', 'accepted', 0],
  ['submit latency p50 (ms)', 'submitP50', 1],
  ['submit latency p99 (ms)', 'submitP99', 1],
  ['submitted per second', 'submitPerSecond', 0],
  ['settled per second (first submit to none running)', 'settledPerSecond', 0],
  ['completed', 'completed', 0],
  ['server event loop, longest stall (ms)', 'stall', 0],
  ['server RSS before (MB)', 'rssBefore', 0],
  ['server RSS peak (MB)', 'rssPeak', 0],
  ['server RSS after, GC (MB)', 'rssAfter', 0],
  ['server V8 heap in use before, GC (MB)', 'heapBefore', 1],
  ['server V8 heap in use after, GC (MB)', 'heapAfter', 1],
];

function printTable(kinds: string[], title: string, rows: [string, string, number][], results: Results) {
  console.log(`\n${title}\n`);
  console.log(`| measure | ${kinds.join(' | ')} |\n|---|${kinds.map(() => '---:|').join('')}`);
  for (const [label, key, digits] of rows)
    console.log(`| ${label} | ${kinds.map((k) => cell(results[k] ?? [], key, digits)).join(' | ')} |`);
}

type Results = Record<string, Record<string, number>[]>;

const kinds = ['SQLite'];
if (!process.argv.includes('--no-postgres') && (await reachable(5432))) kinds.push('PostgreSQL');
else process.stderr.write('PostgreSQL: not measured (no server on 127.0.0.1:5432, or --no-postgres)\n');
const loadAtStart = loadavg()[0] as number;
const streams: Results = {};
const runs: Results = {};
const only = process.argv.find((a) => a.startsWith('--only='))?.split('=')[1];
const PHASES = (
  [
    ['stream', streamPhase, streams],
    ['runs', runsPhase, runs],
  ] as const
)
  .filter(([name]) => only === undefined || only === name)
  .map(([, phase, into]) => [phase, into] as const);
try {
  for (let rep = 1; rep <= REPS; rep += 1) {
    for (const kind of rep % 2 === 1 ? kinds : [...kinds].reverse()) {
      for (const [phase, into] of PHASES) {
        const [spec, remove] = freshStore(kind);
        try {
          const result = await phase(spec);
          into[kind] = [...(into[kind] ?? []), result];
          process.stderr.write(`rep ${rep} ${kind} ${phase.name}: ${JSON.stringify(result)}\n`);
        } finally {
          await remove();
        }
      }
    }
  }
  console.log(
    `\nnode ${process.version}, ${REPS} repetition${REPS === 1 ? '' : 's'}: median (range); server in its own process; load average ${loadAtStart.toFixed(1)} at the start, ${(loadavg()[0] as number).toFixed(1)} at the end`,
  );
  if (only !== 'runs')
    printTable(
      kinds,
      `${CLIENTS} clients on one run's events (${TASKS} tasks, ${PACE_MS} ms per task), then ${CLIENTS} replaying it`,
      STREAM_ROWS,
      streams,
    );
  if (only !== 'stream')
    printTable(kinds, `${RUNS} runs submitted, ${CONCURRENCY} at a time`, RUNS_ROWS, runs);
} finally {
  rmSync(root, { recursive: true, force: true });
}
