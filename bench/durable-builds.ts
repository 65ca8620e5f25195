/**
 * Two builds of statecrew against each other on the durable step, alternated in one process: a flow
 * of STEPS chained steps, and a sequential crew of STEPS tasks, with no store and on SQLite (a file,
 * WAL), PostgreSQL and Redis, each build run after the other in every round (their order swapped
 * every other round; round 0 warms up). Prints µs per step or task (medians) and the per-round
 * ratio B ÷ A (median, min–max): the change a commit made, free of the machine's drift between runs.
 *   npm run build && cp -r dist <dir-A inside this repository> (for each commit)
 *   node --import tsx bench/durable-builds.ts DIR_A DIR_B [steps=1000] [rounds=5] [--no-servers]
 * Each directory is a copy of `dist/` that sits inside this repository, so its imports resolve.
 * Needs PostgreSQL (database `test`) and Redis on 127.0.0.1 unless `--no-servers`; it cleans up
 * its schemas and keys.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Redis } from 'ioredis';
import pg from 'pg';

const args = process.argv.slice(2).filter((arg) => !arg.startsWith('--'));
const [dirA, dirB] = args;
if (dirA === undefined || dirB === undefined) {
  throw new Error('usage: durable-builds.ts DIR_A DIR_B [steps] [rounds] [--no-servers]');
}
const STEPS = Number(args[2] ?? 1000);
const ROUNDS = Number(args[3] ?? 5);
const servers = !process.argv.includes('--no-servers');
const PG_URL = 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = 'redis://127.0.0.1:6379';
const root = mkdtempSync(join(tmpdir(), 'durable-builds-'));
const tag = `durable_builds_${process.pid}`;

type Api = typeof import('../src/index.js');
type Store = import('../src/index.js').Store;
type StoreKind = 'no store' | 'SQLite' | 'PostgreSQL' | 'Redis';

interface Build {
  label: string;
  open(kind: StoreKind): Store | undefined;
  api: Api;
}

async function load(label: string, dir: string): Promise<Build> {
  const url = (file: string) => pathToFileURL(resolve(dir, file)).href;
  const api = (await import(url('index.js'))) as Api;
  const { PostgresStore } = (await import(
    url('stores/postgres.js')
  )) as typeof import('../src/stores/postgres.js');
  const { RedisStore } = (await import(url('stores/redis.js'))) as typeof import('../src/stores/redis.js');
  const open = (kind: StoreKind): Store | undefined => {
    if (kind === 'SQLite') return new api.SqliteStore({ path: join(root, `${label}.db`) });
    if (kind === 'PostgreSQL')
      return new PostgresStore({ connectionString: PG_URL, schema: `${tag}_${label}` });
    if (kind === 'Redis') return new RedisStore({ url: REDIS_URL, prefix: `${tag}-${label}` });
    return undefined;
  };
  return { label, open, api };
}

let serial = 0;

type Shape = 'flow' | 'crew';

/** One run of `shape` on `kind` with `build`: µs per step or task. */
async function runOnce(build: Build, kind: StoreKind, shape: Shape): Promise<number> {
  return shape === 'flow' ? runFlow(build, kind) : runCrew(build, kind);
}

async function runCrew(build: Build, kind: StoreKind): Promise<number> {
  const store = build.open(kind);
  const { Agent, Crew, Task } = build.api;
  const agent = new Agent({ role: 'Worker', llm: () => 'ok' });
  const tasks = Array.from(
    { length: STEPS },
    (_, i) => new Task({ name: `t${i}`, description: `task ${i}`, agent }),
  );
  const crew = new Crew({ name: 'chain', tasks, ...(store === undefined ? {} : { store }) });
  serial += 1;
  const started = performance.now();
  const out = await crew.kickoff({ executionId: `crew-${serial}` });
  const us = ((performance.now() - started) * 1000) / STEPS;
  await store?.close();
  if (out.status !== 'completed') throw new Error(`${build.label} ${kind} crew: ${out.status}`);
  return us;
}

async function runFlow(build: Build, kind: StoreKind): Promise<number> {
  const store = build.open(kind);
  let flow = build.api.createFlow({ name: 'chain', initialState: { n: 0 }, store });
  for (let i = 0; i < STEPS; i += 1) {
    const body = ({ state }: { state: { n: number } }) => {
      state.n += 1;
      return `step ${i}`;
    };
    flow = i === 0 ? flow.start(`s${i}`, body) : flow.listen(`s${i}`, `s${i - 1}`, body);
  }
  serial += 1;
  const started = performance.now();
  const out = await flow.kickoff({ inputs: { id: `run-${serial}` } });
  const us = ((performance.now() - started) * 1000) / STEPS;
  await store?.close();
  if (out.status !== 'completed' || out.state.n !== STEPS)
    throw new Error(`${build.label} ${kind}: ${out.status}`);
  return us;
}

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

const builds = [await load('a', dirA), await load('b', dirB)] as const;
const kinds: StoreKind[] = servers ? ['no store', 'SQLite', 'PostgreSQL', 'Redis'] : ['no store', 'SQLite'];
const shapes: Shape[] = ['flow', 'crew'];
const times = new Map<string, number[]>();
for (let round = 0; round <= ROUNDS; round += 1) {
  for (const shape of shapes) {
    for (const kind of kinds) {
      const order = round % 2 === 0 ? builds : ([builds[1], builds[0]] as const);
      for (const build of order) {
        const us = await runOnce(build, kind, shape);
        const key = `${shape} ${kind} ${build.label}`;
        if (round > 0) times.set(key, [...(times.get(key) ?? []), us]);
      }
    }
  }
}

console.log(`node ${process.version}, ${STEPS} steps, ${ROUNDS} rounds alternated (+1 warm-up)`);
console.log(`A = ${dirA}, B = ${dirB}\n`);
console.log('| run | store | A µs/step | B µs/step | B ÷ A per round, median (min–max) |');
console.log('| --- | --- | ---: | ---: | --- |');
for (const [shape, kind] of shapes.flatMap((sh) => kinds.map((k) => [sh, k] as const))) {
  const a = times.get(`${shape} ${kind} a`) ?? [];
  const b = times.get(`${shape} ${kind} b`) ?? [];
  const ratios = b.map((us, i) => us / (a[i] ?? Number.NaN));
  const range = `${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}`;
  console.log(
    `| ${shape} | ${kind} | ${median(a).toFixed(1)} | ${median(b).toFixed(1)} | ${median(ratios).toFixed(2)} (${range}) |`,
  );
}

rmSync(root, { recursive: true, force: true });
if (servers) {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  for (const build of builds) await client.query(`DROP SCHEMA IF EXISTS "${tag}_${build.label}" CASCADE`);
  await client.end();
  const redis = new Redis(REDIS_URL);
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${tag}-*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length > 0) await redis.del(...keys);
  } while (cursor !== '0');
  await redis.quit();
}
