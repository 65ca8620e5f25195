/**
 * What owning a run costs: the lease claimed at kickoff and given up at the end, and the heartbeat
 * that renews it every `leaseMs / 3`, each set against a no-store run of the same flow (STEPS
 * chained steps) — the share of that run's time they add.
 *
 * - claim + release: `createRun` of a new head, then the releasing `commit` that settles it, on each
 *   store (median of CLAIMS pairs, alternated across the stores).
 * - one renewal: `renewLease` of a held lease (median of CLAIMS).
 * - heartbeats: a renewal's cost over the time between two renewals (`leaseMs / 3`, 5 s by default)
 *   is the share of a run's time they take. To show they run beside the steps, the same flow runs
 *   on each store with `leaseMs` 30 (a renewal every 10 ms) and its renewals are counted. (The time
 *   difference between such a run and one without renewals was measured too: on this machine two
 *   runs differ by more than all the renewals cost, so it is not reported.)
 *
 *   npm run build && npm --prefix bench run lease -- [steps=1000] [rounds=7] [--no-servers]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const positional = process.argv.slice(2).filter((arg) => !arg.startsWith('--'));
const STEPS = Number(positional[0] ?? 1000);
const ROUNDS = Number(positional[1] ?? 7);
const CLAIMS = 200;
const servers = !process.argv.includes('--no-servers');
const root = mkdtempSync(join(tmpdir(), 'lease-cost-'));
const prefix = `lease-bench-${process.pid}`;

async function load<T>(specifier: string, file: string): Promise<T> {
  const dist = process.env.STATECREW_DIST;
  return (await import(dist ? pathToFileURL(resolve(dist, file)).href : specifier)) as T;
}
const sc = await load<typeof import('statecrew')>('statecrew', 'index.js');
type Store = import('statecrew').Store;

interface Backend {
  name: string;
  open(): Store;
}

async function backends(): Promise<Backend[]> {
  const list: Backend[] = [
    { name: 'memory', open: () => new sc.MemoryStore() },
    { name: 'SQLite', open: () => new sc.SqliteStore({ path: join(root, 'lease.db') }) },
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
  const schema = `lease_bench_${process.pid}`;
  list.push(
    {
      name: 'PostgreSQL',
      open: () =>
        new PostgresStore({ connectionString: 'postgres://postgres@127.0.0.1:5432/test', schema }) as Store,
    },
    { name: 'Redis', open: () => new RedisStore({ url: 'redis://127.0.0.1:6379', prefix }) as Store },
  );
  return list;
}

let serial = 0;
function nextId(): string {
  serial += 1;
  return `lease-${process.pid}-${serial}`;
}

function chainFlow(store: Store | undefined, leaseMs: number | undefined) {
  let flow = sc.createFlow({
    name: 'lease-chain',
    initialState: { n: 0 },
    store,
    ...(leaseMs === undefined ? {} : { leaseMs }),
  });
  for (let i = 0; i < STEPS; i += 1) {
    const body = ({ state }: { state: { n: number } }) => {
      state.n += 1;
      return i;
    };
    flow = i === 0 ? flow.start(`s${i}`, body) : flow.listen(`s${i}`, `s${i - 1}`, body);
  }
  return flow;
}

/** A store whose `renewLease` calls are counted (a proxy: the stores keep private fields). */
function counting(store: Store): { store: Store; renewals: () => number } {
  let renewals = 0;
  const counted = new Proxy(store, {
    get(target, property) {
      if (property === 'renewLease') {
        return (...args: Parameters<Store['renewLease']>) => {
          renewals += 1;
          return target.renewLease(...args);
        };
      }
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { store: counted, renewals: () => renewals };
}

async function timedRun(store: Store | undefined, leaseMs?: number): Promise<number> {
  const flow = chainFlow(store, leaseMs);
  const started = performance.now();
  const out = await flow.kickoff({ inputs: { id: nextId() } });
  const ms = performance.now() - started;
  if (out.status !== 'completed') throw new Error(`run ${out.status}`);
  return ms;
}

const head = (id: string, token: string) => {
  const now = Date.now();
  const lease = {
    owner: 'bench',
    token,
    expiresAt: now + 60_000,
    host: 'bench',
    pid: process.pid,
    thread: 0,
  };
  return {
    id,
    kind: 'flow' as const,
    name: 'lease',
    status: 'running' as const,
    version: 1,
    lease,
    data: {},
    createdAt: now,
    updatedAt: now,
  };
};

/** One claim + release, and one renewal, on `store`: milliseconds each. */
async function claimAndRenew(store: Store): Promise<{ claim: number; renew: number }> {
  const id = nextId();
  const started = performance.now();
  if (!(await store.createRun(head(id, 't')))) throw new Error('claim refused');
  const claimed = performance.now();
  if (!(await store.renewLease(id, 't', Date.now() + 60_000))) throw new Error('renewal refused');
  const renewed = performance.now();
  if (!(await store.commit(id, { token: 't', writes: [], status: 'completed', release: true }))) {
    throw new Error('release refused');
  }
  const released = performance.now();
  return { claim: claimed - started + (released - renewed), renew: renewed - claimed };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};
const spread = (values: number[], digits = 2) =>
  `${median(values).toFixed(digits)} (${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)})`;
const percent = (part: number, whole: number) => `${((100 * part) / whole).toFixed(2)}%`;

const list = await backends();
const stores = new Map(list.map((b) => [b.name, b.open()]));
const noStore: number[] = [];
const claims = new Map<string, number[]>(list.map((b) => [b.name, []]));
const renewals = new Map<string, number[]>(list.map((b) => [b.name, []]));
const beats = new Map<string, number[]>(list.map((b) => [b.name, []]));

for (let round = 0; round <= ROUNDS; round += 1) {
  const order = round % 2 === 0 ? list : [...list].reverse();
  noStore.push(await timedRun(undefined));
  for (const backend of order) {
    const store = stores.get(backend.name) as Store;
    for (let i = 0; i < CLAIMS / (ROUNDS + 1); i += 1) {
      const { claim, renew } = await claimAndRenew(store);
      if (round > 0) {
        claims.get(backend.name)?.push(claim);
        renewals.get(backend.name)?.push(renew);
      }
    }
    const counted = counting(store);
    await timedRun(counted.store, 30);
    if (round > 0) beats.get(backend.name)?.push(counted.renewals());
  }
  if (round === 0) noStore.length = 0;
}

const base = median(noStore);
console.log(`node ${process.version}, ${STEPS} steps, ${ROUNDS} rounds alternated (+1 warm-up)`);
console.log(`no-store run: ${spread(noStore)} ms\n`);
console.log(
  '| store | claim + release ms | share of a no-store run | one renewal ms | heartbeat share at leaseMs 15,000 | renewals in a run at leaseMs 30 |',
);
console.log('| --- | --- | --- | --- | --- | --- |');
for (const { name } of list) {
  const claim = claims.get(name) as number[];
  const renew = renewals.get(name) as number[];
  console.log(
    `| ${name} | ${spread(claim, 3)} | ${percent(median(claim), base)} | ${spread(renew, 3)} | ${percent(median(renew), 15_000 / 3)} | ${median(beats.get(name) as number[])} |`,
  );
}
for (const store of stores.values()) await store.close();
rmSync(root, { recursive: true, force: true });
if (servers) {
  const pg = (await import('pg')).default;
  const client = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/test' });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS lease_bench_${process.pid} CASCADE`);
  await client.end();
  const { Redis } = await import('ioredis');
  const redis = new Redis('redis://127.0.0.1:6379');
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
    cursor = next;
    if (keys.length > 0) await redis.del(...keys);
  } while (cursor !== '0');
  await redis.quit();
}
