/**
 * The longest time a run holds its host's event loop, measured with `monitorEventLoopDelay` (10 ms
 * resolution, its max) and a `setImmediate` probe (the longest gap between two turns), each case in a
 * fresh child process, REPS times, medians and ranges:
 *   - kickoff: a 100,000-task graph crew (root → 100,000 → join), every task in flight, its
 *     synchronous `crew.run()` alone and the whole run;
 *   - flow-sqlite / flow-postgres: a 1,000-step chain flow over SQLite (a temp file) / PostgreSQL
 *     (127.0.0.1:5432, database `test`, a schema of its own, dropped after; skipped when it does
 *     not answer);
 *   - crews: 50 crews of 100 sequential tasks at once, each over its own in-memory store;
 *   - leaves-sqlite: a graph crew root → 20,000 leaves (no join, 64 at once) over SQLite (a temp
 *     file): its end sums up 20,000 leaves and stores their results in one document.
 * Each case is measured cold (its first run in the process: the code is compiled as it runs) and
 * warm (the same run again in the same process, as a host that has served one does it), the share
 * of a turn its runs take as the runtime sets it (`BENCH_SHARE=N` sets another).
 *   npm run build && node --import tsx bench/host-stalls.ts [REPS=5] [CASE]
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { statecrew } from './built.js';
import { watchStalls } from './stall-probe.js';

const { Agent, Crew, Task, createFlow, MemoryStore, SqliteStore } = statecrew;
const CASES = ['kickoff', 'flow-sqlite', 'flow-postgres', 'crews', 'leaves-sqlite'] as const;
type Case = (typeof CASES)[number];
const POSTGRES = 'postgres://postgres@127.0.0.1:5432/test';

/** A model answering on the macrotask queue, as a network call would. */
const answer = () => new Promise<string>((resolve) => setImmediate(() => resolve('ok')));

/**
 * A case: what it builds before the watch starts (a crew of 100,000 tasks takes a while), then its
 * run, which can run again; `close` frees what it holds.
 */
interface Prepared {
  run(): Promise<Record<string, number>>;
  close?(): Promise<void>;
}

async function kickoff(): Promise<Prepared> {
  const N = 100_000;
  const worker = new Agent({ role: 'W', llm: answer });
  const root = new Task({ name: 'root', description: 'x', agent: worker });
  const middle = Array.from(
    { length: N },
    (_, i) => new Task({ name: `m${i}`, description: 'x', agent: worker, context: [root] }),
  );
  const join = new Task({ name: 'join', description: 'x', agent: worker, context: middle });
  const crew = new Crew({ tasks: [root, ...middle, join], process: 'graph', maxConcurrency: N + 2 });
  return {
    async run() {
      const started = performance.now();
      const run = crew.run();
      const syncMs = performance.now() - started;
      await run.result;
      return { syncRunMs: syncMs, runMs: performance.now() - started };
    },
  };
}

/** A chain flow of `steps` instant steps over `store`. */
function chainFlow(steps: number, store: import('../src/index.js').Store) {
  let flow = createFlow({ name: 'chain', initialState: { n: 0 }, store }).start('s0', ({ state }) => {
    state.n += 1;
    return 0;
  });
  for (let i = 1; i < steps; i += 1) {
    flow = flow.listen(`s${i}`, `s${i - 1}`, ({ state }) => {
      state.n += 1;
      return i;
    });
  }
  return flow;
}

async function flowOnSqlite(): Promise<Prepared> {
  const dir = mkdtempSync(join(tmpdir(), 'statecrew-stalls-'));
  const store = new SqliteStore({ path: join(dir, 'runs.db') });
  await store.listRuns(); // the schema is made before the measured run
  const flow = chainFlow(1_000, store);
  return {
    run: () => timed(() => flow.kickoff({ inputs: {} })),
    async close() {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function timed(work: () => Promise<unknown>): Promise<Record<string, number>> {
  const started = performance.now();
  await work();
  return { runMs: performance.now() - started };
}

async function flowOnPostgres(): Promise<Prepared> {
  const { PostgresStore } = (await import(
    new URL('../dist/stores/postgres.js', import.meta.url).href
  )) as typeof import('../src/stores/postgres.js');
  const schema = `stalls_${process.pid}`;
  const store = new PostgresStore({ connectionString: POSTGRES, schema });
  await store.listRuns();
  const flow = chainFlow(1_000, store);
  return {
    run: () => timed(() => flow.kickoff({ inputs: {} })),
    async close() {
      await store.close();
      const pg = (await import('pg')).default;
      const admin = new pg.Client({ connectionString: POSTGRES });
      await admin.connect();
      await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await admin.end();
    },
  };
}

async function crews(): Promise<Prepared> {
  const worker = new Agent({ role: 'W', llm: answer });
  const make = () =>
    new Crew({
      tasks: Array.from(
        { length: 100 },
        (_, i) => new Task({ name: `t${i}`, description: 'x', agent: worker }),
      ),
      store: new MemoryStore(),
    });
  const all = Array.from({ length: 50 }, make);
  return { run: () => timed(() => Promise.all(all.map((crew) => crew.kickoff()))) };
}

async function leavesOnSqlite(): Promise<Prepared> {
  const dir = mkdtempSync(join(tmpdir(), 'statecrew-stalls-'));
  const store = new SqliteStore({ path: join(dir, 'runs.db') });
  await store.listRuns();
  const worker = new Agent({ role: 'W', llm: answer });
  const root = new Task({ name: 'root', description: 'x', agent: worker });
  const leaves = Array.from(
    { length: 20_000 },
    (_, i) => new Task({ name: `m${i}`, description: 'x', agent: worker, context: [root] }),
  );
  const crew = new Crew({ tasks: [root, ...leaves], process: 'graph', maxConcurrency: 64, store });
  return {
    run: () => timed(() => crew.kickoff()),
    async close() {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const RUNS: Record<Case, () => Promise<Prepared>> = {
  kickoff,
  'flow-sqlite': flowOnSqlite,
  'flow-postgres': flowOnPostgres,
  crews,
  'leaves-sqlite': leavesOnSqlite,
};

/** One run of a case, watched: its figures and the longest stall. */
async function watched(prepared: Prepared): Promise<Record<string, number>> {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  const probe = watchStalls();
  const figures = await prepared.run();
  const probeMs = probe.stop();
  histogram.disable();
  return { ...figures, stallMs: probeMs, loopDelayMaxMs: histogram.max / 1e6 };
}

/** One case in this process, cold then warm: their figures as one JSON line. */
async function child(which: Case): Promise<void> {
  const share = process.env.BENCH_SHARE;
  if (share) {
    const turn = (await import(
      new URL('../dist/runtime/run/host-turn.js', import.meta.url).href
    )) as typeof import('../src/runtime/run/host-turn.js');
    turn.hostTurn.setShare(Number(share));
  }
  const prepared = await RUNS[which]();
  try {
    const cold = await watched(prepared);
    const warm = await watched(prepared);
    console.log(JSON.stringify({ cold, warm }));
  } finally {
    await prepared.close?.();
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
const fmt = (values: number[]) =>
  `${median(values).toFixed(0)} (${Math.min(...values).toFixed(0)}–${Math.max(...values).toFixed(0)})`;

function postgresAnswers(): boolean {
  try {
    execFileSync('pg_isready', ['-h', '127.0.0.1', '-p', '5432'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

async function parent(reps: number, only: Case | undefined): Promise<void> {
  const self = fileURLToPath(import.meta.url);
  console.log(
    `| case | runs | longest stall, probe (ms) | event-loop delay max (ms) | run (ms) | sync crew.run() (ms) |`,
  );
  console.log('|---|---:|---:|---:|---:|---:|');
  for (const which of CASES) {
    if (only !== undefined && which !== only) continue;
    if (which === 'flow-postgres' && !postgresAnswers()) {
      console.log(`| ${which} | skipped: PostgreSQL does not answer on 127.0.0.1:5432 | | | | |`);
      continue;
    }
    const rows: Record<'cold' | 'warm', Record<string, number>>[] = [];
    for (let i = 0; i < reps; i += 1) {
      const out = execFileSync(process.execPath, ['--import', 'tsx', self, '--child', which], {
        encoding: 'utf8',
      });
      rows.push(JSON.parse(out.trim().split('\n').at(-1) ?? '{}'));
    }
    for (const when of ['cold', 'warm'] as const) {
      const col = (key: string) =>
        rows[0]?.[when][key] === undefined ? '—' : fmt(rows.map((r) => r[when][key] ?? 0));
      console.log(
        `| ${which}, ${when} | ${reps} | ${col('stallMs')} | ${col('loopDelayMaxMs')} | ${col('runMs')} | ${col('syncRunMs')} |`,
      );
    }
  }
}

const args = process.argv.slice(2);
if (args[0] === '--child') await child(args[1] as Case);
else await parent(Number(args[0] ?? 5), args[1] as Case | undefined);
