/**
 * Group commit, side by side in one process: FLOWS statecrew flows of STEPS instant steps at once on
 * one store, with `groupCommit: true` and with `groupCommit: false` (one commit per step), and
 * LangGraph.js running the same FLOWS threads at once (a two-node cycle, `durability: 'sync'`), on
 * SQLite (a file, WAL) and on PostgreSQL. The cases of a round are interleaved, their order reversed
 * every other round; round 0 warms up. Prints steps/s (median, min–max), PostgreSQL commits per step
 * (`pg_stat_database.xact_commit` read around each run) and round trips per step (one more run of
 * each PostgreSQL case through a counting relay).
 *   npm run build && npm --prefix bench exec tsx compare/group-commit.ts -- [flows=100] [steps=100] [rounds=5] [--no-servers] [--durability=process|power]
 * STATECREW_DIST=<a built dist/ directory> measures that build instead of the installed package.
 * `--durability` is given to both statecrew stores (each keeps its own default without it).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BaseCheckpointSaver } from '@langchain/langgraph';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';
import pg from 'pg';
import { cycleGraph, pgCommits, relay, chainFlow as sharedChainFlow } from './durable-parts.js';

const positional = process.argv.slice(2).filter((arg) => !arg.startsWith('--'));
const FLOWS = Number(positional[0] ?? 100);
const STEPS = Number(positional[1] ?? 100);
const ROUNDS = Number(positional[2] ?? 5);
const servers = !process.argv.includes('--no-servers');
const durabilityArg = process.argv.find((a) => a.startsWith('--durability='))?.slice('--durability='.length);
if (durabilityArg !== undefined && durabilityArg !== 'process' && durabilityArg !== 'power') {
  throw new Error(`--durability=${durabilityArg}: 'process' or 'power'`);
}
const durability = durabilityArg === undefined ? {} : { durability: durabilityArg as 'process' | 'power' };
const PG_URL = 'postgres://postgres@127.0.0.1:5432/test';
const root = mkdtempSync(join(tmpdir(), 'group-commit-'));
const schemas = { statecrew: `group_sc_${process.pid}`, langgraph: `group_lg_${process.pid}` };

type Store = import('statecrew').Store;
async function load<T>(specifier: string, file: string): Promise<T> {
  const dist = process.env.STATECREW_DIST;
  return (await import(dist ? pathToFileURL(resolve(dist, file)).href : specifier)) as T;
}
const sc = await load<typeof import('statecrew')>('statecrew', 'index.js');

type Db = 'SQLite' | 'PostgreSQL';
interface Case {
  db: Db;
  label: string;
  /** One run of FLOWS × STEPS steps against `pgUrl`; the milliseconds it took. */
  run(pgUrl: string): Promise<number>;
}

let serial = 0;
const nextId = () => {
  serial += 1;
  return `group-${process.pid}-${serial}`;
};

const chainFlow = (store: Store) => sharedChainFlow(sc, 'group-chain', STEPS, store);

function statecrewCase(db: Db, label: string, open: (pgUrl: string) => Store): Case {
  return {
    db,
    label,
    async run(pgUrl) {
      const store = open(pgUrl);
      const flow = chainFlow(store);
      const ids = Array.from({ length: FLOWS }, nextId);
      const started = performance.now();
      const outs = await Promise.all(ids.map((id) => flow.kickoff({ inputs: { id } })));
      const ms = performance.now() - started;
      await store.close();
      if (outs.some((out) => out.status !== 'completed' || out.state.n !== STEPS)) {
        throw new Error(`statecrew ${label}: a run did not complete`);
      }
      return ms;
    },
  };
}

async function statecrewCases(): Promise<Case[]> {
  const sqlite = (groupCommit: boolean) => () =>
    new sc.SqliteStore({ path: join(root, 'statecrew.db'), groupCommit, ...durability }) as Store;
  const list = [
    statecrewCase('SQLite', 'statecrew, groupCommit: true', sqlite(true)),
    statecrewCase('SQLite', 'statecrew, groupCommit: false', sqlite(false)),
  ];
  if (!servers) return list;
  const { PostgresStore } = await load<typeof import('statecrew/stores/postgres')>(
    'statecrew/stores/postgres',
    'stores/postgres.js',
  );
  const postgres = (groupCommit: boolean) => (pgUrl: string) =>
    new PostgresStore({
      connectionString: pgUrl,
      schema: schemas.statecrew,
      groupCommit,
      ...durability,
    }) as unknown as Store;
  list.push(
    statecrewCase('PostgreSQL', 'statecrew, groupCommit: true', postgres(true)),
    statecrewCase('PostgreSQL', 'statecrew, groupCommit: false', postgres(false)),
  );
  return list;
}

function langgraphCase(
  db: Db,
  open: (pgUrl: string) => { saver: BaseCheckpointSaver; close(): Promise<void> },
): Case {
  return {
    db,
    label: "LangGraph.js, durability: 'sync'",
    async run(pgUrl) {
      const { saver, close } = open(pgUrl);
      const app = cycleGraph(STEPS).compile({ checkpointer: saver });
      const config = (thread: string) => ({
        recursionLimit: Math.max(10_000, STEPS + 10),
        durability: 'sync' as const,
        configurable: { thread_id: thread },
      });
      const threads = Array.from({ length: FLOWS }, nextId);
      const started = performance.now();
      const outs = await Promise.all(threads.map((t) => app.invoke({ counter: 0, out: '' }, config(t))));
      const ms = performance.now() - started;
      await close();
      if (outs.some((out) => out.counter !== STEPS)) throw new Error(`LangGraph ${db}: a thread fell short`);
      return ms;
    },
  };
}

async function langgraphCases(): Promise<Case[]> {
  const list = [
    langgraphCase('SQLite', () => {
      const saver = SqliteSaver.fromConnString(join(root, 'langgraph.db'));
      return { saver, close: async () => void saver.db.close() };
    }),
  ];
  if (!servers) return list;
  const setup = PostgresSaver.fromConnString(PG_URL, { schema: schemas.langgraph });
  await setup.setup();
  await setup.end();
  list.push(
    langgraphCase('PostgreSQL', (pgUrl) => {
      const saver = PostgresSaver.fromConnString(pgUrl, { schema: schemas.langgraph });
      return { saver, close: () => saver.end() };
    }),
  );
  return list;
}

/** A counting relay to PostgreSQL, with the connection string that goes through it. */
async function pgRelay(): Promise<{ url: string; trips: () => number; close: () => Promise<void> }> {
  const hop = await relay(5432);
  return { url: PG_URL.replace(':5432/', `:${hop.port}/`), trips: hop.trips, close: hop.close };
}

interface Samples {
  rate: number[];
  commits: number[];
  trips?: number;
}

const total = FLOWS * STEPS;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const spread = (xs: number[], digits = 0) =>
  xs.length === 0
    ? '—'
    : `${median(xs).toFixed(digits)} (${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)})`;

async function measure(cases: Case[]): Promise<Samples[]> {
  const counter = servers ? await pgCommits(PG_URL) : undefined;
  const samples = cases.map((): Samples => ({ rate: [], commits: [] }));
  try {
    for (let round = 0; round <= ROUNDS; round += 1) {
      for (let i = 0; i < cases.length; i += 1) {
        const k = round % 2 === 0 ? i : cases.length - 1 - i;
        const c = cases[k] as Case;
        const before = c.db === 'PostgreSQL' ? await counter?.read() : undefined;
        const ms = await c.run(PG_URL);
        const after = c.db === 'PostgreSQL' ? await counter?.read() : undefined;
        if (round === 0) continue;
        const sample = samples[k] as Samples;
        sample.rate.push((total * 1000) / ms);
        if (before !== undefined && after !== undefined) sample.commits.push((after - before) / total);
      }
    }
  } finally {
    await counter?.end();
  }
  for (const [k, c] of cases.entries()) {
    if (c.db !== 'PostgreSQL') continue;
    const hop = await pgRelay();
    try {
      await c.run(hop.url);
      (samples[k] as Samples).trips = hop.trips() / total;
    } finally {
      await hop.close();
    }
  }
  return samples;
}

function report(cases: Case[], samples: Samples[]): string[] {
  const lines: string[] = [];
  for (const db of ['SQLite', 'PostgreSQL'] as const) {
    const at = (label: string) => cases.findIndex((c) => c.db === db && c.label === label);
    const grouped = samples[at('statecrew, groupCommit: true')];
    if (grouped === undefined) continue;
    lines.push(
      `### ${db}`,
      '',
      '| case | steps/s median (min–max) | ÷ grouped, per round | commits/step | round trips/step |',
    );
    lines.push('| --- | --- | --- | --- | --- |');
    for (const [k, c] of cases.entries()) {
      if (c.db !== db) continue;
      const s = samples[k] as Samples;
      const ratio = s.rate.map((r, round) => r / (grouped.rate[round] as number));
      const commits = db === 'PostgreSQL' ? spread(s.commits, 3) : 'not counted';
      const trips = s.trips === undefined ? '—' : s.trips.toFixed(3);
      lines.push(`| ${c.label} | ${spread(s.rate)} | ${spread(ratio, 2)}× | ${commits} | ${trips} |`);
    }
    lines.push('');
  }
  return lines;
}

async function cleanup(): Promise<void> {
  if (servers) {
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    for (const schema of Object.values(schemas))
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await client.end();
  }
  rmSync(root, { recursive: true, force: true });
}

async function main(): Promise<void> {
  try {
    const cases = [...(await statecrewCases()), ...(await langgraphCases())];
    const pgNote =
      durabilityArg === undefined ? 'each store its default durability' : `--durability=${durabilityArg}`;
    console.log(
      `node ${process.version}, ${FLOWS} flows × ${STEPS} steps at once, ${ROUNDS} rounds alternated (+1 warm-up), ${pgNote}, statecrew from ${process.env.STATECREW_DIST ? 'STATECREW_DIST' : 'the installed package'}`,
      '',
    );
    const samples = await measure(cases);
    console.log(report(cases, samples).join('\n'));
  } finally {
    await cleanup();
  }
}

await main();
