/**
 * What a store adds to a flow step beyond the database's own work, alternated in one process: the
 * same 1,000-step chain with no store, a store whose `commit` does nothing, one that also serialises
 * every record it is given, `MemoryStore`, and `SqliteStore` (a file, WAL). Prints µs per step,
 * median (min–max) over ROUNDS rounds after a warm-up, the order reversed every other round.
 *   npx tsx bench/flow-store-overhead.ts [rounds=9]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFlow, MemoryStore, type RunCommit, SqliteStore, type Store } from '../src/index.js';

const STEPS = 1000;
const ROUNDS = Number(process.argv[2] ?? 9);
const root = mkdtempSync(join(tmpdir(), 'flow-store-overhead-'));

/** Keeps nothing: the flow's bookkeeping with a store, and no store's work. */
class NullStore extends MemoryStore {
  override async commit(): Promise<boolean> {
    return true;
  }
}

/** Keeps nothing, but serialises every record as a store would. */
class SerialisingStore extends MemoryStore {
  override async commit(_id: string, commit: RunCommit): Promise<boolean> {
    for (const write of commit.writes) JSON.stringify(write.value);
    return true;
  }
}

function chain(store: Store | undefined) {
  let flow = createFlow({ name: 'chain', initialState: { n: 0 }, ...(store ? { store } : {}) });
  for (let i = 0; i < STEPS; i += 1) {
    const body = ({ state }: { state: { n: number } }) => {
      state.n += 1;
      return `step ${i}`;
    };
    flow = i === 0 ? flow.start(`s${i}`, body) : flow.listen(`s${i}`, `s${i - 1}`, body);
  }
  return flow;
}

const cases: Record<string, () => Store | undefined> = {
  'no store': () => undefined,
  'commit does nothing': () => new NullStore(),
  'commit serialises': () => new SerialisingStore(),
  MemoryStore: () => new MemoryStore(),
  SqliteStore: () => new SqliteStore({ path: join(root, 'steps.db') }),
};
const samples = new Map<string, number[]>(Object.keys(cases).map((name) => [name, []]));
let serial = 0;
for (let round = 0; round <= ROUNDS; round += 1) {
  const names = Object.keys(cases);
  if (round % 2 === 1) names.reverse();
  for (const name of names) {
    const store = cases[name]?.();
    const flow = chain(store);
    serial += 1;
    const started = performance.now();
    const out = await flow.kickoff({ inputs: { id: `run-${serial}` } });
    const us = ((performance.now() - started) * 1000) / STEPS;
    await store?.close();
    if (out.status !== 'completed') throw new Error(`${name}: ${out.status}`);
    if (round > 0) samples.get(name)?.push(us);
  }
}
rmSync(root, { recursive: true, force: true });
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
console.log(`node ${process.version}, ${STEPS} steps, ${ROUNDS} rounds alternated (+1 warm-up)\n`);
console.log('| store | µs/step, median (min–max) |\n| --- | ---: |');
for (const [name, xs] of samples) {
  console.log(
    `| ${name} | ${median(xs).toFixed(1)} (${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)}) |`,
  );
}
