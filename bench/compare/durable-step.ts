/**
 * The cost of a durable step, side by side in one process: a statecrew flow of STEPS chained steps,
 * a LangGraph.js graph cycling `a` → `b` → `a` … for STEPS steps (`durability: 'sync'`), and the
 * physical floor (one bare INSERT in its own transaction, or one HSET, per step), each with no
 * store and with SQLite (a file, WAL), PostgreSQL and Redis. The runs of one round are interleaved
 * across all cases, their order reversed every other round; round 0 warms up. Prints µs per step
 * (median, min–max), the overhead per step over the same runtime's no-store run of the same round
 * (median, min–max), PostgreSQL commits and Redis commands per step (server counters read around
 * each run) and round trips per step (one more run of each server case through a counting relay);
 * SQLite has no such counter, so its commits are not counted. Each run's CPU time (this process's
 * user + system) is read too, and its overhead over the no-store run: on SQLite, in this process, it
 * is all of a step's work, and other load on the machine disturbs it less than the wall clock; with
 * a server it leaves out the server's work.
 *   npm run build && npm --prefix bench install && npm --prefix bench run durable -- [steps=1000] [rounds=5] [--no-servers] [--durability=process|power]
 * `--durability` sets what a SQLite commit survives, on statecrew's store (its `durability` option)
 * and on the floor's connection alike (`synchronous` NORMAL or FULL). The SQLite floor runs twice:
 * with SQLite's defaults (automatic checkpoint every 1,000 WAL pages) and with the automatic
 * checkpoint statecrew's store sets (every 10,000 pages). `floor, same record` writes, per step, the
 * row statecrew's store writes for that step: the same JSON text (`chainStepText`, built before the
 * clock starts) in a table of the store's shape (a `seq` key and a unique execution id and key), on
 * SQLite with the store's automatic checkpoint — one INSERT, one commit, nothing else.
 * Needs PostgreSQL (database `test`) and Redis on 127.0.0.1, as the tests do; `--no-servers`
 * measures SQLite only; `--pg-only` the no-store and PostgreSQL cases alone; `--durability=process|power`
 * sets statecrew's PostgresStore `durability` and the floor's `synchronous_commit` to match.
 * STATECREW_BEFORE_DIST=<another dist/> adds that build's PostgresStore as `statecrew before`.
 * STATECREW_DIST=<a built dist/ directory> measures that build of statecrew
 * instead of the one `bench/` installs from `file:..`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type BaseCheckpointSaver, MemorySaver } from '@langchain/langgraph';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';
import Database from 'better-sqlite3';
import { Redis } from 'ioredis';
import pg from 'pg';
import {
  chainStepText,
  cycleGraph,
  pgCommits,
  relay,
  chainFlow as sharedChainFlow,
} from './durable-parts.js';

const positional = process.argv.slice(2).filter((arg) => !arg.startsWith('--'));
const STEPS = Number(positional[0] ?? 1000);
const ROUNDS = Number(positional[1] ?? 5);
const servers = !process.argv.includes('--no-servers');
/** `--durability=process|power`: what a commit survives, for statecrew's stores and the floors alike (SQLite `synchronous` NORMAL or FULL, PostgreSQL `synchronous_commit` off or on); without it, each store's default and the floor's server defaults. */
const durabilityArg = process.argv
  .find((arg) => arg.startsWith('--durability='))
  ?.slice('--durability='.length);
if (durabilityArg !== undefined && durabilityArg !== 'process' && durabilityArg !== 'power') {
  throw new Error(`--durability=${durabilityArg}: 'process' or 'power'`);
}
/** `--pg-only`: the no-store and PostgreSQL cases alone. */
const pgOnly = process.argv.includes('--pg-only');
const durability = durabilityArg as 'process' | 'power' | undefined;
const SYNCHRONOUS = durability === 'power' ? 'FULL' : 'NORMAL';
/** The automatic checkpoint statecrew's SqliteStore sets on its connection (since `9879231`; SQLite's default before). */
const STORE_AUTOCHECKPOINT = 10_000;
/** The floor's PostgreSQL connection options: `synchronous_commit` as `--durability` says (the server's default without it). */
const floorPgOptions =
  durability === undefined ? undefined : `-c synchronous_commit=${durability === 'power' ? 'on' : 'off'}`;
const PG_URL = 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = 'redis://127.0.0.1:6379';
const names = {
  statecrewSchema: `durable_sc_${process.pid}`,
  langgraphSchema: `durable_lg_${process.pid}`,
  floorSchema: `durable_floor_${process.pid}`,
  redisPrefix: `durable-bench-${process.pid}`,
};
const root = mkdtempSync(join(tmpdir(), 'durable-step-'));

// ── statecrew: the installed package (`file:..`, its dist/), or the build STATECREW_DIST names ──

type Store = import('statecrew').Store;

async function load<T>(specifier: string, file: string): Promise<T> {
  const dist = process.env.STATECREW_DIST;
  return (await import(dist ? pathToFileURL(resolve(dist, file)).href : specifier)) as T;
}

const sc = await load<typeof import('statecrew')>('statecrew', 'index.js');

/** Where the server cases connect: the servers themselves, or the counting relay. */
interface Target {
  pg: string;
  redis: string;
}
type Db = 'no store' | 'SQLite' | 'PostgreSQL' | 'Redis';
type Runtime =
  | 'statecrew'
  | 'statecrew before'
  | 'LangGraph'
  | 'LangGraph + MemorySaver'
  | 'floor'
  | 'floor, autocheckpoint 10000'
  | 'floor, same record';
/** What one run of STEPS steps took: wall-clock ms, and this process's CPU time (user + system) in µs. */
interface Timing {
  ms: number;
  cpuUs: number;
}

/** Starts timing; the function it returns stops it. */
function startTiming(): () => Timing {
  const started = performance.now();
  const cpu = process.cpuUsage();
  return () => {
    const ms = performance.now() - started;
    const used = process.cpuUsage(cpu);
    return { ms, cpuUs: used.user + used.system };
  };
}

interface Case {
  db: Db;
  runtime: Runtime;
  /** One run of STEPS steps; what the steps took. */
  run(target: Target): Promise<Timing>;
}

let serial = 0;
function nextId(): string {
  serial += 1;
  return `bench-${process.pid}-${serial}`;
}

const chainFlow = (store: Store | undefined) => sharedChainFlow(sc, 'durable-chain', STEPS, store);

function statecrewCase(
  db: Db,
  open: (target: Target) => Store | undefined,
  runtime: Runtime = 'statecrew',
): Case {
  return {
    db,
    runtime,
    async run(target) {
      const store = open(target);
      const flow = chainFlow(store);
      const stop = startTiming();
      const out = await flow.kickoff({ inputs: { id: nextId() } });
      const timing = stop();
      await store?.close();
      if (out.status !== 'completed' || out.state.n !== STEPS)
        throw new Error(`statecrew ${db}: ${out.status}`);
      return timing;
    },
  };
}

async function statecrewCases(): Promise<Case[]> {
  const list = [
    statecrewCase('no store', () => undefined),
    statecrewCase('SQLite', () => new sc.SqliteStore({ path: join(root, 'statecrew.db'), durability })),
  ];
  if (!servers) return list;
  const { PostgresStore } = await load<typeof import('statecrew/stores/postgres')>(
    'statecrew/stores/postgres',
    'stores/postgres.js',
  );
  const { RedisStore } = await load<typeof import('statecrew/stores/redis')>(
    'statecrew/stores/redis',
    'stores/redis.js',
  );
  const schema = names.statecrewSchema;
  list.push(
    statecrewCase(
      'PostgreSQL',
      (t) =>
        new PostgresStore({
          connectionString: t.pg,
          schema,
          ...(durability === undefined ? {} : { durability }),
        }) as unknown as Store,
    ),
  );
  const before = process.env.STATECREW_BEFORE_DIST;
  if (before !== undefined) {
    // The build before, on PostgreSQL, beside this one: its overhead is read against this build's no-store run.
    const url = pathToFileURL(resolve(before, 'stores/postgres.js')).href;
    const { PostgresStore: Before } = (await import(url)) as typeof import('statecrew/stores/postgres');
    const beforeSchema = `${schema}_before`;
    list.push(
      statecrewCase(
        'PostgreSQL',
        (t) =>
          new Before({
            connectionString: t.pg,
            schema: beforeSchema,
            ...(durability === undefined ? {} : { durability }),
          }) as unknown as Store,
        'statecrew before',
      ),
    );
  }
  list.push(
    statecrewCase(
      'Redis',
      (t) => new RedisStore({ url: t.redis, prefix: names.redisPrefix }) as unknown as Store,
    ),
  );
  return list;
}

// ── LangGraph.js: a two-node cycle over a counter, to END after STEPS steps ──

interface Saver {
  saver?: BaseCheckpointSaver;
  close(): Promise<void>;
}

function langgraphCase(db: Db, runtime: Runtime, open: (target: Target) => Saver): Case {
  return {
    db,
    runtime,
    async run(target) {
      const { saver, close } = open(target);
      const app = cycleGraph(STEPS).compile(saver ? { checkpointer: saver } : {});
      const config = {
        recursionLimit: Math.max(10_000, STEPS + 10),
        durability: 'sync' as const,
        configurable: { thread_id: nextId() },
      };
      const stop = startTiming();
      const out = await app.invoke({ counter: 0, out: '' }, config);
      const timing = stop();
      await close();
      if (out.counter !== STEPS) throw new Error(`LangGraph ${db}: ${out.counter} steps`);
      return timing;
    },
  };
}

async function langgraphCases(): Promise<Case[]> {
  const list = [
    langgraphCase('no store', 'LangGraph', () => ({ close: async () => {} })),
    langgraphCase('no store', 'LangGraph + MemorySaver', () => ({
      saver: new MemorySaver(),
      close: async () => {},
    })),
    langgraphCase('SQLite', 'LangGraph', () => {
      const saver = SqliteSaver.fromConnString(join(root, 'langgraph.db'));
      return { saver, close: async () => void saver.db.close() };
    }),
  ];
  if (!servers) return list;
  const schema = names.langgraphSchema;
  const setup = PostgresSaver.fromConnString(PG_URL, { schema });
  await setup.setup();
  await setup.end();
  list.push(
    langgraphCase('PostgreSQL', 'LangGraph', (t) => {
      const saver = PostgresSaver.fromConnString(t.pg, { schema });
      return { saver, close: () => saver.end() };
    }),
  );
  return list;
}

// ── The floor: per step one bare write, one transaction (or one command), nothing else ──

interface FloorConnection {
  write(step: number): unknown;
  close(): Promise<void>;
}

function floorCase(
  db: Db,
  open: (target: Target) => Promise<FloorConnection>,
  runtime: Runtime = 'floor',
): Case {
  return {
    db,
    runtime,
    async run(target) {
      const connection = await open(target);
      const stop = startTiming();
      for (let i = 0; i < STEPS; i += 1) await connection.write(i);
      const timing = stop();
      await connection.close();
      return timing;
    },
  };
}

/**
 * The floor's SQLite file: `journal_mode = WAL`, `synchronous` as `--durability` says, and the
 * automatic checkpoint SQLite's default (1,000 pages) or, given, statecrew's store's.
 */
function openFloorSqlite(autocheckpoint?: number): Database.Database {
  const db = new Database(join(root, autocheckpoint === undefined ? 'floor.db' : 'floor-ckpt.db'));
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${SYNCHRONOUS}`);
  if (autocheckpoint !== undefined) db.pragma(`wal_autocheckpoint = ${autocheckpoint}`);
  db.exec(
    'CREATE TABLE IF NOT EXISTS floor (run TEXT NOT NULL, step INTEGER NOT NULL, value TEXT NOT NULL, PRIMARY KEY (run, step))',
  );
  return db;
}

async function sqliteFloor(autocheckpoint?: number): Promise<FloorConnection> {
  const db = openFloorSqlite(autocheckpoint);
  const insert = db.prepare('INSERT INTO floor (run, step, value) VALUES (?, ?, ?)');
  const run = nextId();
  return { write: (i) => insert.run(run, i, `step ${i}`), close: async () => void db.close() };
}

/** The table of the floor that writes statecrew's record: the shape of a store's record table. */
const RECORD_TABLE = {
  sqlite:
    'CREATE TABLE IF NOT EXISTS records (seq INTEGER PRIMARY KEY, execution_id TEXT NOT NULL, key TEXT NOT NULL, version INTEGER NOT NULL, value TEXT NOT NULL, updated_at INTEGER NOT NULL, UNIQUE (execution_id, key))',
  pg: (schema: string) =>
    `CREATE TABLE IF NOT EXISTS "${schema}".records (execution_id TEXT NOT NULL, key TEXT NOT NULL, seq BIGINT GENERATED ALWAYS AS IDENTITY, version INTEGER NOT NULL, value TEXT NOT NULL, updated_at BIGINT NOT NULL, PRIMARY KEY (execution_id, key))`,
};

/** Per step, the row statecrew writes for it (key, JSON text, time), made before the clock starts. */
function stepRows(run: string): { key: string; text: string; at: number }[] {
  const at = Date.now();
  return Array.from({ length: STEPS }, (_, i) => ({
    key: `step:s${i}`,
    text: chainStepText(run, i, at),
    at,
  }));
}

/** SQLite's floor of statecrew's own record: one INSERT of the step's row, in its own transaction. */
async function sqliteRecordFloor(): Promise<FloorConnection> {
  const db = new Database(join(root, 'floor-record.db'));
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${SYNCHRONOUS}`);
  db.pragma(`wal_autocheckpoint = ${STORE_AUTOCHECKPOINT}`);
  db.exec(RECORD_TABLE.sqlite);
  const insert = db.prepare(
    'INSERT INTO records (execution_id, key, version, value, updated_at) VALUES (?, ?, 1, ?, ?)',
  );
  const run = nextId();
  const rows = stepRows(run);
  return {
    write: (i) => {
      const row = rows[i] as { key: string; text: string; at: number };
      return insert.run(run, row.key, row.text, row.at);
    },
    close: async () => void db.close(),
  };
}

/** PostgreSQL's floor of statecrew's own record: one INSERT of the step's row, autocommitted. */
async function pgRecordFloor(target: Target): Promise<FloorConnection> {
  const client = new pg.Client({ connectionString: target.pg, options: floorPgOptions });
  await client.connect();
  const sql = `INSERT INTO "${names.floorSchema}".records (execution_id, key, version, value, updated_at) VALUES ($1, $2, 1, $3, $4)`;
  const run = nextId();
  const rows = stepRows(run);
  return {
    write: (i) => {
      const row = rows[i] as { key: string; text: string; at: number };
      return client.query(sql, [run, row.key, row.text, row.at]);
    },
    close: () => client.end(),
  };
}

async function pgFloor(target: Target): Promise<FloorConnection> {
  const client = new pg.Client({ connectionString: target.pg, options: floorPgOptions });
  await client.connect();
  const sql = `INSERT INTO "${names.floorSchema}".floor (run, step, value) VALUES ($1, $2, $3)`;
  const run = nextId();
  return { write: (i) => client.query(sql, [run, i, `step ${i}`]), close: () => client.end() };
}

async function redisFloor(target: Target): Promise<FloorConnection> {
  const client = new Redis(target.redis, { lazyConnect: true });
  await client.connect();
  const key = `${names.redisPrefix}:floor:${nextId()}`;
  return {
    write: (i) => client.hset(key, String(i), `step ${i}`),
    close: async () => void (await client.quit()),
  };
}

async function floorCases(): Promise<Case[]> {
  const list = [floorCase('no store', async () => ({ write: () => {}, close: async () => {} }))];
  list.push(floorCase('SQLite', () => sqliteFloor()));
  list.push(floorCase('SQLite', () => sqliteFloor(STORE_AUTOCHECKPOINT), 'floor, autocheckpoint 10000'));
  list.push(floorCase('SQLite', sqliteRecordFloor, 'floor, same record'));
  if (!servers) return list;
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  await client.query(`CREATE SCHEMA IF NOT EXISTS "${names.floorSchema}"`);
  await client.query(
    `CREATE TABLE IF NOT EXISTS "${names.floorSchema}".floor (run TEXT NOT NULL, step INTEGER NOT NULL, value TEXT NOT NULL, PRIMARY KEY (run, step))`,
  );
  await client.query(RECORD_TABLE.pg(names.floorSchema));
  await client.end();
  list.push(
    floorCase('PostgreSQL', pgFloor),
    floorCase('PostgreSQL', pgRecordFloor, 'floor, same record'),
    floorCase('Redis', redisFloor),
  );
  return list;
}

// ── Counting: PostgreSQL commits, Redis commands, and round trips ──

interface Counter {
  /** The server's running total, less this counter's own reads. */
  read(): Promise<number>;
  end(): Promise<void>;
}

/** The sum of `calls` in `INFO commandstats` (commands a script calls count too), less its own INFOs. */
async function redisCommands(): Promise<Counter> {
  const client = new Redis(REDIS_URL);
  let reads = 0;
  const read = async () => {
    reads += 1;
    const info = await client.info('commandstats');
    const calls = [...info.matchAll(/calls=(\d+)/g)].reduce((sum, m) => sum + Number(m[1]), 0);
    return calls - (reads - 1);
  };
  return { read, end: async () => void (await client.quit()) };
}

// ── Measuring ──

interface Samples {
  us: number[];
  /** This process's CPU µs per step (user + system), per round. */
  cpu: number[];
  counted: number[];
  trips?: number;
}

const direct: Target = { pg: PG_URL, redis: REDIS_URL };

async function timedRun(
  c: Case,
  counters: Partial<Record<Db, Counter>>,
): Promise<[number, number, number | undefined]> {
  const counter = counters[c.db];
  const before = await counter?.read();
  const { ms, cpuUs } = await c.run(direct);
  const after = await counter?.read();
  const counted = before === undefined || after === undefined ? undefined : (after - before) / STEPS;
  return [(ms * 1000) / STEPS, cpuUs / STEPS, counted];
}

async function rounds(cases: Case[], counters: Partial<Record<Db, Counter>>): Promise<Samples[]> {
  const samples = cases.map((): Samples => ({ us: [], cpu: [], counted: [] }));
  for (let round = 0; round <= ROUNDS; round += 1) {
    for (let i = 0; i < cases.length; i += 1) {
      const k = round % 2 === 0 ? i : cases.length - 1 - i;
      const [us, cpu, counted] = await timedRun(cases[k] as Case, counters);
      if (round === 0) continue; // round 0 warms up
      const sample = samples[k] as Samples;
      sample.us.push(us);
      sample.cpu.push(cpu);
      if (counted !== undefined) sample.counted.push(counted);
    }
  }
  return samples;
}

/** One more run of each server case through the relay, to count its round trips. */
async function countTrips(cases: Case[], samples: Samples[]): Promise<void> {
  for (const [k, c] of cases.entries()) {
    if (c.db !== 'PostgreSQL' && c.db !== 'Redis') continue;
    const hop = await relay(c.db === 'PostgreSQL' ? 5432 : 6379);
    const target: Target = {
      pg: PG_URL.replace(':5432/', `:${hop.port}/`),
      redis: REDIS_URL.replace(':6379', `:${hop.port}`),
    };
    try {
      await c.run(target);
      (samples[k] as Samples).trips = hop.trips() / STEPS;
    } finally {
      await hop.close();
    }
  }
}

// ── Reporting ──

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const fmt = (x: number, digits = 1) => x.toFixed(digits);
const spread = (xs: number[], digits = 1) =>
  xs.length === 0
    ? '—'
    : `${fmt(median(xs), digits)} (${fmt(Math.min(...xs), digits)}–${fmt(Math.max(...xs), digits)})`;

/**
 * Per round, µs per step of case k less that of its runtime's no-store case in the same round: wall
 * clock, or (`'cpu'`) this process's CPU time.
 */
function overheads(cases: Case[], samples: Samples[], k: number, of: 'us' | 'cpu' = 'us'): number[] {
  const c = cases[k] as Case;
  const runtime =
    c.runtime === 'LangGraph + MemorySaver'
      ? 'LangGraph'
      : c.runtime === 'floor, autocheckpoint 10000' || c.runtime === 'floor, same record'
        ? 'floor'
        : c.runtime === 'statecrew before'
          ? 'statecrew'
          : c.runtime;
  const base = cases.findIndex((b) => b.db === 'no store' && b.runtime === runtime);
  if (base < 0 || base === k) return [];
  const own = (samples[k] as Samples)[of];
  const theirs = (samples[base] as Samples)[of];
  return own.map((us, r) => us - (theirs[r] as number));
}

function table(db: Db, cases: Case[], samples: Samples[]): string[] {
  const unit = db === 'Redis' ? 'commands/step' : 'commits/step';
  const lines = [
    `### ${db}`,
    '',
    `| runtime | µs/step median (min–max) | overhead µs/step median (min–max) | overhead CPU µs/step, this process | ${unit} | round trips/step | statecrew ÷ LangGraph overhead |`,
    '| --- | --- | --- | --- | --- | --- | --- |',
  ];
  const at = (runtime: Runtime) => cases.findIndex((c) => c.db === db && c.runtime === runtime);
  const ours = overheads(cases, samples, at('statecrew'));
  const lg = at('LangGraph') >= 0 ? overheads(cases, samples, at('LangGraph')) : [];
  const ratio = ours.length > 0 && lg.length > 0 ? `${fmt(median(ours) / median(lg), 2)}×` : '—';
  for (const [k, c] of cases.entries()) {
    if (c.db !== db) continue;
    const s = samples[k] as Samples;
    const counted = db === 'PostgreSQL' || db === 'Redis' ? spread(s.counted, 2) : 'not counted';
    const trips = s.trips === undefined ? '—' : fmt(s.trips, 2);
    const cells = [
      c.runtime,
      spread(s.us),
      spread(overheads(cases, samples, k)),
      spread(overheads(cases, samples, k, 'cpu')),
    ];
    cells.push(db === 'no store' ? '—' : counted, trips, c.runtime === 'statecrew' ? ratio : '');
    lines.push(`| ${cells.join(' | ')} |`);
  }
  const floor = at('floor') >= 0 ? overheads(cases, samples, at('floor')) : [];
  const own = at('statecrew before') >= 0 ? overheads(cases, samples, at('statecrew before')) : [];
  if (own.length > 0 && floor.length === own.length) {
    const perRound = own.map((us, r) => us / (floor[r] as number));
    lines.push('', `statecrew before ÷ floor overhead, per round: ${spread(perRound, 2)}×`);
  }
  return [...lines, '', ...floorRatios(db, cases, samples, ours), ''];
}

/**
 * Per round, statecrew's overhead ÷ each floor's of the same round: median (min–max); on SQLite (in
 * this process, so its CPU time is all the work) in CPU time too, which other load on the machine
 * disturbs less than the wall clock.
 */
function floorRatios(db: Db, cases: Case[], samples: Samples[], ours: number[]): string[] {
  const lines: string[] = [];
  const at = cases.findIndex((c) => c.db === db && c.runtime === 'statecrew');
  const oursCpu = at >= 0 ? overheads(cases, samples, at, 'cpu') : [];
  for (const [k, c] of cases.entries()) {
    if (c.db !== db || !c.runtime.startsWith('floor') || ours.length === 0) continue;
    const floor = overheads(cases, samples, k);
    const ratios = ours.map((us, r) => us / (floor[r] as number));
    lines.push(`statecrew overhead ÷ ${c.runtime} overhead, per round: ${spread(ratios, 2)}`);
    if (db !== 'SQLite') continue;
    const floorCpu = overheads(cases, samples, k, 'cpu');
    const cpuRatios = oursCpu.map((us, r) => us / (floorCpu[r] as number));
    lines.push(`  in CPU time: ${spread(cpuRatios, 2)}`);
  }
  return lines;
}

async function environment(): Promise<string[]> {
  const db = openFloorSqlite();
  const sqlite = `SQLite ${db.prepare('SELECT sqlite_version() AS v').pluck().get()}, journal_mode ${db.pragma('journal_mode', { simple: true })}, synchronous ${db.pragma('synchronous', { simple: true })} (0 off, 1 normal, 2 full; --durability=${durability ?? 'not given: process'}), floor wal_autocheckpoint ${db.pragma('wal_autocheckpoint', { simple: true })} and ${STORE_AUTOCHECKPOINT}`;
  db.close();
  const lines = [
    `node ${process.version}, ${STEPS} steps, ${ROUNDS} rounds alternated (+1 warm-up), statecrew from ${process.env.STATECREW_DIST ? 'STATECREW_DIST' : 'the installed package'}`,
    sqlite,
  ];
  if (!servers) return lines;
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  const show = async (name: string) =>
    (await client.query<Record<string, string>>(`SHOW ${name}`)).rows[0]?.[name];
  lines.push(
    `PostgreSQL ${await show('server_version')}, synchronous_commit ${await show('synchronous_commit')}, fsync ${await show('fsync')}; --durability=${durability ?? "(not given: the store's default, the server's for the floor)"}`,
  );
  await client.end();
  const redis = new Redis(REDIS_URL);
  const version = /redis_version:(\S+)/.exec(await redis.info('server'))?.[1];
  const aof = await redis.config('GET', 'appendonly', 'appendfsync', 'save');
  lines.push(`Redis ${version}, ${(aof as string[]).join(' ')}`);
  await redis.quit();
  return lines;
}

// ── Cleaning up: the schemas, the keys under the prefix, the files ──

async function cleanup(): Promise<void> {
  if (servers) {
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    const schemas = [names.statecrewSchema, `${names.statecrewSchema}_before`];
    for (const schema of [...schemas, names.langgraphSchema, names.floorSchema]) {
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    }
    await client.end();
    const redis = new Redis(REDIS_URL);
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${names.redisPrefix}:*`, 'COUNT', 1000);
      if (keys.length > 0) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
    await redis.quit();
  }
  rmSync(root, { recursive: true, force: true });
}

async function main(): Promise<void> {
  const counters: Partial<Record<Db, Counter>> = {};
  try {
    const all = [...(await statecrewCases()), ...(await langgraphCases()), ...(await floorCases())];
    const cases = pgOnly ? all.filter((c) => c.db === 'no store' || c.db === 'PostgreSQL') : all;
    if (servers) {
      counters.PostgreSQL = await pgCommits(PG_URL);
      counters.Redis = await redisCommands();
    }
    console.log((await environment()).join('\n'));
    const samples = await rounds(cases, counters);
    await countTrips(cases, samples);
    console.log('');
    for (const db of ['no store', 'SQLite', 'PostgreSQL', 'Redis'] as const) {
      if (cases.some((c) => c.db === db)) console.log(table(db, cases, samples).join('\n'));
    }
  } finally {
    for (const counter of Object.values(counters)) await counter.end();
    await cleanup();
  }
}

await main();
