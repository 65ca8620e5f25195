/**
 * Time travel against reading a run: one 1,000-step flow run is kept on a store, then these calls
 * alternate run by run in this one process (the order reversed every other round, the first round a
 * warm-up), each timed whole:
 *   getRun      flow.getRun(id): the run's snapshot (state, trail, every step's output)
 *   history     flow.history(id), and readHistory(store, id): every checkpoint, each with its output
 *               and the state it left
 *   page        readHistory(store, id, { limit: 100 }): the first page of 100
 *   list        store.list('flow_runs', id): the records all of them read, and nothing else
 *   fork        flow.fork(id, { at: <step 999's checkpoint> }), a new run each call: it keeps the
 *               999 step runs and runs the last step only (its steps count their calls)
 * A sample is the mean of REPS calls in a row. Prints each call's median ms (min–max) and its ratio to
 * the first call (getRun) in the same round, median (min–max). `--kind crew` keeps a sequential crew
 * of 1,000 tasks instead (a crew has no getRun: the baseline is the bare list of its task results)
 * and adds crew.history(id) and crew.fork(id, { at: <task 999> }), a new run each call, which calls
 * the model once (counted).
 * The store is a fresh SQLite file or a fresh PostgreSQL schema, removed afterwards.
 *   npx tsx bench/time-travel.ts [--store sqlite|postgres] [--rounds N] [--kind flow|crew]
 *     [--steps N] [--state-bytes N]
 *   (node --expose-gc --import tsx bench/time-travel.ts …: a collection before every sample)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { Agent, Crew, createFlow, readHistory, SqliteStore, type Store, Task } from '../src/index.js';
import { PostgresStore } from '../src/stores/postgres.js';

/** Calls per case per round (a sample is their mean): one call of a 1,000-step run takes milliseconds. */
const REPS = 5;
const collect = (globalThis as { gc?: () => void }).gc ?? (() => {});
const POSTGRES_URL = 'postgres://postgres@127.0.0.1:5432/test';
const SOURCE = 'tt-source';

/** The command line: which store, how many rounds, how many steps. */
function parseArgs(argv: readonly string[]) {
  const value = (flag: string) => {
    const at = argv.indexOf(flag);
    return at === -1 ? undefined : argv[at + 1];
  };
  const store = value('--store') ?? 'sqlite';
  if (store !== 'sqlite' && store !== 'postgres') throw new Error(`--store sqlite|postgres, not ${store}`);
  const rounds = Number(value('--rounds') ?? 15);
  const steps = Number(value('--steps') ?? 1000);
  const stateBytes = Number(value('--state-bytes') ?? 0);
  const kind = value('--kind') ?? 'flow';
  if (kind !== 'flow' && kind !== 'crew') throw new Error(`--kind flow|crew, not ${kind}`);
  if (!Number.isSafeInteger(rounds) || rounds < 1) throw new Error('--rounds: a whole number ≥ 1');
  if (!Number.isSafeInteger(steps) || steps < 2) throw new Error('--steps: a whole number ≥ 2');
  if (!Number.isSafeInteger(stateBytes) || stateBytes < 0)
    throw new Error('--state-bytes: a whole number ≥ 0');
  return { store: store as 'sqlite' | 'postgres', kind: kind as 'flow' | 'crew', rounds, steps, stateBytes };
}

/** A store of the run's own, and how to remove it. */
interface BenchStore {
  store: Store;
  cleanup(): Promise<void>;
}

function sqlite(): BenchStore {
  const dir = mkdtempSync(join(tmpdir(), 'statecrew-time-travel-'));
  const store = new SqliteStore({ path: join(dir, 'runs.db') });
  return {
    store,
    async cleanup() {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function postgres(): BenchStore {
  const schema = `statecrew_bench_tt_${process.pid}`;
  const store = new PostgresStore({ connectionString: POSTGRES_URL, schema });
  return {
    store,
    async cleanup() {
      await store.close();
      const admin = new pg.Client({ connectionString: POSTGRES_URL });
      await admin.connect();
      await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await admin.end();
    },
  };
}

/**
 * A chain of `steps` steps, each listening to the one before: one committed step run each. The state
 * carries `stateBytes` of notes besides a counter (every step record keeps the state it left).
 */
function chainFlow(steps: number, stateBytes: number, store: Store, ran: { steps: number }) {
  const initialState = { n: 0, last: '', notes: 'x'.repeat(stateBytes) };
  const flow = createFlow({ name: 'time-travel', initialState, store });
  flow.start('s0', () => {
    ran.steps += 1;
    return 'step 0';
  });
  for (let i = 1; i < steps; i += 1) {
    flow.listen(`s${i}`, `s${i - 1}`, ({ state }) => {
      ran.steps += 1;
      state.n += 1;
      state.last = `step ${i}`;
      return `step ${i}`;
    });
  }
  return flow;
}

type Case = [name: string, run: () => Promise<void>];

/** Runs every case once per round (the first is the baseline) and keeps each one's ms and ratio to it. */
async function alternate(cases: readonly Case[], rounds: number) {
  const ms = cases.map((): number[] => []);
  const ratios = cases.map((): number[] => []);
  for (let round = 0; round <= rounds; round += 1) {
    const order = cases.map((_, i) => i);
    if (round % 2 === 1) order.reverse();
    const took: number[] = [];
    for (const i of order) {
      collect();
      const started = performance.now();
      for (let rep = 0; rep < REPS; rep += 1) await (cases[i] as Case)[1]();
      took[i] = (performance.now() - started) / REPS;
    }
    if (round === 0) continue;
    took.forEach((t, i) => {
      ms[i]?.push(t);
      ratios[i]?.push(t / (took[0] as number));
    });
  }
  return cases.map(([name], i) => ({ name, ms: ms[i] as number[], ratio: ratios[i] as number[] }));
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
const spread = (xs: number[], digits: number) =>
  `${median(xs).toFixed(digits)} (${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)})`;

/** Throws unless `actual` is what a complete `steps`-step run gives. */
function expect(what: string, actual: number, steps: number) {
  if (actual !== steps) throw new Error(`${what}: ${actual}, expected ${steps}`);
}

type Args = ReturnType<typeof parseArgs>;

/** The history calls, which read a run of any kind from its store alone. */
function historyCases(store: Store, steps: number): Case[] {
  return [
    [
      'readHistory(store, id)',
      async () => expect('checkpoints', (await readHistory(store, SOURCE)).checkpoints.length, steps),
    ],
    [
      'readHistory(store, id, { limit: 100 })',
      async () =>
        expect(
          'page',
          (await readHistory(store, SOURCE, { limit: 100 })).checkpoints.length,
          Math.min(100, steps),
        ),
    ],
  ];
}

/** `crew.fork` at checkpoint `at`, a new run each call: it keeps the task runs up to `at` and runs the rest. */
function crewForkCase(crew: Crew, at: string, steps: number, calls: { model: number }): Case {
  let forks = 0;
  return [
    `crew.fork(id, { at: '${at}' })`,
    async () => {
      forks += 1;
      const before = calls.model;
      const out = await crew.fork(SOURCE, { at, id: `tt-fork-${forks}` });
      if (out.status !== 'completed') throw new Error(`fork: ${out.status}`);
      expect('fork tasks', out.tasksOutput.length, steps);
      expect('model calls of a fork', calls.model - before, 1);
    },
  ];
}

/** A sequential crew of `steps` tasks, each answered at once: one committed task run each. */
async function crewBench(store: Store, { steps, rounds }: Args) {
  const calls = { model: 0 };
  const llm = (_prompt: string, context: string) => {
    calls.model += 1;
    return `${context.length}`;
  };
  const agent = new Agent({ role: 'Worker', llm });
  const tasks = Array.from(
    { length: steps },
    (_, i) => new Task({ name: `t${i}`, description: `step ${i}`, agent }),
  );
  const crew = new Crew({ tasks, store });
  const built = performance.now();
  const out = await crew.kickoff({ executionId: SOURCE });
  if (out.status !== 'completed') throw new Error(`the source run: ${out.status}`);
  const buildMs = performance.now() - built;
  const full = await crew.history(SOURCE);
  const at = full.checkpoints[steps - 2]?.checkpoint ?? '';
  const cases: Case[] = [
    [
      "store.list('crew_task_results', id)",
      async () => expect('records', (await store.list('crew_task_results', SOURCE)).length, steps),
    ],
    [
      'crew.history(id)',
      async () => expect('checkpoints', (await crew.history(SOURCE)).checkpoints.length, steps),
    ],
    ...historyCases(store, steps),
    crewForkCase(crew, at, steps, calls),
  ];
  return { buildMs, results: await alternate(cases, rounds) };
}

/** `flow.fork` at checkpoint `at`, a new run each call: it keeps the step runs up to `at` and runs the rest. */
function forkCase(
  flow: ReturnType<typeof chainFlow>,
  at: string,
  steps: number,
  ran: { steps: number },
): Case {
  let forks = 0;
  return [
    `flow.fork(id, { at: '${at}' })`,
    async () => {
      forks += 1;
      const before = ran.steps;
      const out = await flow.fork(SOURCE, { at, id: `tt-fork-${forks}` });
      if (out.status !== 'completed' || out.forkedFrom?.checkpoint !== at)
        throw new Error(`fork: ${out.status}`);
      expect('fork trail', out.trail.length, steps);
      expect('steps a fork ran', ran.steps - before, 1);
    },
  ];
}

async function flowBench(store: Store, { steps, rounds, stateBytes }: Args) {
  const ran = { steps: 0 };
  const flow = chainFlow(steps, stateBytes, store, ran);
  const built = performance.now();
  const out = await flow.kickoff({ inputs: { id: SOURCE } });
  if (out.status !== 'completed') throw new Error(`the source run: ${out.status}`);
  const buildMs = performance.now() - built;
  const full = await flow.history(SOURCE);
  expect('checkpoints', full.checkpoints.length, steps);
  const at = full.checkpoints[steps - 2]?.checkpoint ?? '';
  const cases: Case[] = [
    ['flow.getRun(id)', async () => expect('trail', (await flow.getRun(SOURCE))?.trail.length ?? 0, steps)],
    [
      'flow.history(id)',
      async () => expect('checkpoints', (await flow.history(SOURCE)).checkpoints.length, steps),
    ],
    ...historyCases(store, steps),
    [
      "store.list('flow_runs', id)",
      async () => expect('records', (await store.list('flow_runs', SOURCE)).length, steps + 1),
    ],
    forkCase(flow, at, steps, ran),
  ];
  const results = await alternate(cases, rounds);
  await checkFork(store, at, steps);
  return { buildMs, results };
}

/** The last fork kept every step run up to `at` (none ran again) and ran the one after it. */
async function checkFork(store: Store, at: string, steps: number) {
  const fork = await readHistory(store, 'tt-fork-1');
  expect('fork checkpoints', fork.checkpoints.length, steps);
  if (fork.forkedFrom?.runId !== SOURCE || fork.forkedFrom.checkpoint !== at) throw new Error('fork lineage');
}

const args = parseArgs(process.argv.slice(2));
const provided = args.store === 'sqlite' ? sqlite() : postgres();
try {
  const { buildMs, results } = await (args.kind === 'flow' ? flowBench : crewBench)(provided.store, args);
  const run = args.kind === 'flow' ? `${args.steps}-step flow run` : `${args.steps}-task sequential crew run`;
  const notes = args.kind === 'flow' ? `, ${args.stateBytes} bytes of notes in its state` : '';
  console.log(
    `node ${process.version}, ${args.store}, a ${run} (kept in ${buildMs.toFixed(0)} ms)${notes}, ` +
      `${args.rounds} rounds alternated (+1 warm-up), ${REPS} calls a sample\n`,
  );
  const baseline = results[0]?.name ?? '';
  console.log(`| call | ms, median (min–max) | × \`${baseline}\`, median (min–max) |\n| --- | ---: | ---: |`);
  for (const { name, ms, ratio } of results) {
    console.log(`| \`${name}\` | ${spread(ms, 1)} | ${spread(ratio, 2)} |`);
  }
} finally {
  await provided.cleanup();
}
