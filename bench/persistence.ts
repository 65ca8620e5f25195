/**
 * What persistence costs: a 1,000-step flow (a chain of steps) with no store, and with each store
 * (SQLite file, PostgreSQL, Redis), alternated in this one process; µs per step and the overhead per
 * step against no store (medians). Then crew task-result writes per second: a 1,000-task sequential
 * crew with each store.
 *   npm run build && node --import tsx bench/persistence.ts [steps] [rounds]
 * Needs PostgreSQL and Redis on 127.0.0.1 (as the tests do); pass `--no-servers` to measure SQLite only.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { statecrew } from './built.js';

const { createFlow, Crew, Agent, Task, SqliteStore } = statecrew;
type Store = InstanceType<typeof SqliteStore>;

const STEPS = Number(process.argv[2] ?? 1000);
const ROUNDS = Number(process.argv[3] ?? 5);
const servers = !process.argv.includes('--no-servers');
const root = mkdtempSync(join(tmpdir(), 'statecrew-bench-'));

async function stores(): Promise<[string, () => Promise<Store | undefined>, () => Promise<void>][]> {
  const list: [string, () => Promise<Store | undefined>, () => Promise<void>][] = [
    ['no store', async () => undefined, async () => {}],
    ['SQLite', async () => new SqliteStore({ path: join(root, 'bench.db') }), async () => {}],
  ];
  if (servers) {
    const { PostgresStore } = (await import(
      new URL('../dist/stores/postgres.js', import.meta.url).href
    )) as typeof import('../src/stores/postgres.js');
    const { RedisStore } = (await import(
      new URL('../dist/stores/redis.js', import.meta.url).href
    )) as typeof import('../src/stores/redis.js');
    const schema = `statecrew_bench_${process.pid}`;
    list.push([
      'PostgreSQL',
      async () =>
        new PostgresStore({
          connectionString: 'postgres://postgres@127.0.0.1:5432/test',
          schema,
        }) as unknown as Store,
      async () => {
        const pg = (await import('pg')).default;
        const client = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/test' });
        await client.connect();
        await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await client.end();
      },
    ]);
    const prefix = `statecrew-bench-${process.pid}`;
    list.push([
      'Redis',
      async () => new RedisStore({ url: 'redis://127.0.0.1:6379', prefix }) as unknown as Store,
      async () => {
        const { Redis } = await import('ioredis');
        const client = new Redis('redis://127.0.0.1:6379');
        let cursor = '0';
        do {
          const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
          if (keys.length > 0) await client.del(...keys);
          cursor = next;
        } while (cursor !== '0');
        await client.quit();
      },
    ]);
  }
  return list;
}

function chainFlow(store: Store | undefined) {
  let flow = createFlow({ name: 'bench-chain', initialState: { n: 0 }, store });
  for (let i = 0; i < STEPS; i += 1) {
    const body = ({ state }: { state: { n: number } }) => {
      state.n += 1;
      return `step ${i}`;
    };
    flow = i === 0 ? flow.start(`s${i}`, body) : flow.listen(`s${i}`, `s${i - 1}`, body);
  }
  return flow;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
let serial = 0;

async function flowRun(make: () => Promise<Store | undefined>): Promise<number> {
  const store = await make();
  const flow = chainFlow(store);
  serial += 1;
  const started = performance.now();
  const out = await flow.kickoff({ inputs: { id: `bench-${process.pid}-${serial}` } });
  const ms = performance.now() - started;
  if (out.status !== 'completed') throw new Error(out.status);
  await store?.close();
  return (ms * 1000) / STEPS;
}

async function crewRun(make: () => Promise<Store | undefined>): Promise<number> {
  const store = await make();
  const worker = new Agent({ role: 'W', llm: () => 'ok' });
  const tasks = Array.from(
    { length: STEPS },
    (_, i) => new Task({ name: `t${i}`, description: 'x', agent: worker }),
  );
  const crew = new Crew({ tasks, store });
  const started = performance.now();
  const out = await crew.kickoff();
  const seconds = (performance.now() - started) / 1000;
  if (out.status !== 'completed') throw new Error(out.status);
  await store?.close();
  return STEPS / seconds;
}

const cases = await stores();
try {
  console.log(`node ${process.version}, ${STEPS} steps, ${ROUNDS} rounds alternated, medians`);
  const perStep = cases.map((): number[] => []);
  for (let round = 0; round <= ROUNDS; round += 1) {
    for (let i = 0; i < cases.length; i += 1) {
      const k = round % 2 === 0 ? i : cases.length - 1 - i;
      const us = await flowRun((cases[k] as (typeof cases)[number])[1]);
      if (round > 0) perStep[k]?.push(us); // round 0 warms up
    }
  }
  const base = median(perStep[0] as number[]);
  cases.forEach(([name], k) => {
    const us = median(perStep[k] as number[]);
    console.log(
      `flow of ${STEPS} steps, ${name.padEnd(10)} ${us.toFixed(1).padStart(8)} µs/step  overhead ${(us - base).toFixed(1).padStart(8)} µs/step`,
    );
  });
  for (const [name, make] of cases) {
    const rates: number[] = [];
    for (let round = 0; round < 3; round += 1) rates.push(await crewRun(make));
    console.log(
      `crew of ${STEPS} tasks, ${name.padEnd(10)} ${median(rates).toFixed(0).padStart(8)} tasks (and task-result writes) per second`,
    );
  }
} finally {
  for (const [, , cleanup] of cases) await cleanup();
  rmSync(root, { recursive: true, force: true });
}
