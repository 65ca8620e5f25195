/**
 * SqliteStore's commit alone, two builds and the floor alternated in one process: ROUNDS rounds of N
 * sequential fenced one-record commits (a flow step's record) on stores kept open across rounds,
 * against N bare INSERTs, each in its own transaction, on a connection with SQLite's defaults (WAL,
 * synchronous NORMAL, automatic checkpoint every 1,000 pages). Prints µs per commit and per-round ratios.
 *   npm run build && cp -r dist <dir inside this repository> (for each build)
 *   node bench/sqlite-commit-builds.mjs DIR_A DIR_B [N=3000] [ROUNDS=9]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';

const dirs = process.argv.slice(2, 4);
const N = Number(process.argv[4] ?? 3000);
const ROUNDS = Number(process.argv[5] ?? 9);
const root = mkdtempSync(join(tmpdir(), 'store-ab-'));
const mods = await Promise.all(dirs.map((d) => import(pathToFileURL(resolve(d, 'index.js')).href)));
const value = {
  nodeId: 's10',
  step: 's10',
  run: 1,
  round: 11,
  output: ['step 10'],
  state: [{ n: 1, id: 2 }, 11, 'x1'],
  at: Date.now(),
  mark: 12,
  ended: { n: 11, steps: ['s10'], emitted: ['s10'] },
};
let serial = 0;
const stores = mods.map((m, i) => new m.SqliteStore({ path: join(root, `s${i}.db`) }));
const floorDb = new Database(join(root, 'floor.db'));
floorDb.pragma('journal_mode = WAL');
floorDb.exec(
  'CREATE TABLE floor (run TEXT NOT NULL, step INTEGER NOT NULL, value TEXT NOT NULL, PRIMARY KEY (run, step))',
);
const ins = floorDb.prepare('INSERT INTO floor VALUES (?, ?, ?)');
async function storeRun(store) {
  const id = `r${serial++}`;
  const now = Date.now();
  await store.createRun({
    id,
    kind: 'flow',
    name: 'f',
    status: 'running',
    version: 1,
    lease: { owner: 'x', token: 't', expiresAt: now + 600000, host: 'x', pid: 1, thread: 0 },
    data: {},
    createdAt: now,
    updatedAt: now,
  });
  const t = performance.now();
  for (let i = 0; i < N; i++)
    if (
      !(await store.commit(id, {
        token: 't',
        writes: [{ collection: 'flow_runs', key: `step:s${i}`, value }],
      }))
    )
      throw new Error('fence');
  return ((performance.now() - t) * 1000) / N;
}
async function floorRun() {
  const id = `r${serial++}`;
  const t = performance.now();
  for (let i = 0; i < N; i++) await ins.run(id, i, `step ${i}`);
  return ((performance.now() - t) * 1000) / N;
}
const cases = [() => storeRun(stores[0]), () => storeRun(stores[1]), floorRun];
const res = cases.map(() => []);
for (let r = 0; r <= ROUNDS; r++)
  for (let j = 0; j < cases.length; j++) {
    const k = r % 2 ? cases.length - 1 - j : j;
    const us = await cases[k]();
    if (r) res[k].push(us);
  }
const med = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const sp = (xs, d = 1) =>
  `${med(xs).toFixed(d)} (${Math.min(...xs).toFixed(d)}–${Math.max(...xs).toFixed(d)})`;
console.log(`${N} commits × ${ROUNDS} rounds, stores kept open across rounds`);
for (const [k, n] of [`A ${dirs[0]}`, `B ${dirs[1]}`, 'floor'].entries()) {
  console.log(n.padEnd(24), 'µs/commit', sp(res[k]));
}
console.log(
  'B ÷ A per round',
  sp(
    res[1].map((b, r) => b / res[0][r]),
    2,
  ),
);
console.log(
  'A ÷ floor per round',
  sp(
    res[0].map((a, r) => a / res[2][r]),
    2,
  ),
  '  B ÷ floor per round',
  sp(
    res[1].map((b, r) => b / res[2][r]),
    2,
  ),
);
for (const s of stores) await s.close();
floorDb.close();
rmSync(root, { recursive: true });
