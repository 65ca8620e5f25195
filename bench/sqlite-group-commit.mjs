/**
 * Group commit on SQLite: 100 flows of STEPS chained steps run at once on one SqliteStore, with
 * `groupCommit` on and off alternated in one process (ROUNDS rounds, the first a warm-up). Prints
 * steps per second and, with group commit, the transactions, commits and largest batch.
 *   npm run build && node bench/sqlite-group-commit.mjs [dist] [STEPS=100] [process|power] [ROUNDS=7]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const sc = await import(pathToFileURL(resolve(process.argv[2] ?? 'dist', 'index.js')).href);
const FLOWS = 100,
  STEPS = Number(process.argv[3] ?? 100);
const DUR = process.argv[4] ?? 'process';
const root = mkdtempSync(join(tmpdir(), 'many-'));
function chain(store) {
  let flow = sc.createFlow({ name: 'chain', initialState: { n: 0 }, store });
  for (let i = 0; i < STEPS; i += 1) {
    const body = ({ state }) => {
      state.n += 1;
      return `step ${i}`;
    };
    flow = i === 0 ? flow.start(`s${i}`, body) : flow.listen(`s${i}`, `s${i - 1}`, body);
  }
  return flow;
}
let serial = 0;
async function once(group) {
  const store = new sc.SqliteStore({ path: join(root, `m${group}.db`), groupCommit: group, durability: DUR });
  const flow = chain(store);
  const t = performance.now();
  const outs = await Promise.all(
    Array.from({ length: FLOWS }, () => flow.kickoff({ inputs: { id: `r${serial++}` } })),
  );
  const ms = performance.now() - t;
  if (outs.some((o) => o.status !== 'completed')) throw new Error('not completed');
  const c = store.commitBatches;
  await store.close();
  return { sps: ((FLOWS * STEPS) / ms) * 1000, c };
}
for (let r = 0; r < Number(process.argv[5] ?? 7); r++)
  for (const g of r % 2 ? [true, false] : [false, true]) {
    const { sps, c } = await once(g);
    if (r) console.log(g ? 'group' : 'single', sps.toFixed(0), 'steps/s', c ? JSON.stringify(c) : '');
  }
rmSync(root, { recursive: true });
