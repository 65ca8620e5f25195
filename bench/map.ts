/**
 * A map over items against the same items run by `kickoffForEach`: a flow whose map step runs a
 * one-task crew per item (`flow.map('each', 'items', { items, run: crew, concurrency })`), and an
 * otherwise identical flow whose plain step runs the same crew over the same items with
 * `crew.kickoffForEach(items, { concurrency, store })` and returns what a map step would (each item's
 * `{ item, itemId, status, output }`, in item order). Both on the same kind of store — a fresh SQLite
 * file per run (or a fresh `MemoryStore`) — with a fresh model and crew per run, so that no run
 * inherits another's rows or recorded calls (`map-cases.ts`).
 *
 * The cases alternate run by run in this one process (A B, then B A, …), after a warm-up round of a
 * few items that is not reported. Each run starts after a forced collection (run with --expose-gc)
 * and is watched (`map-watch.ts`): its wall time, the RSS high water above the RSS at its start, the
 * V8 heap in use at its peak, and the event loop's delay meanwhile. Each round also watches one
 * second with nothing running: the loop delay the machine itself gives (a loaded host deschedules
 * the process). Every run is checked: the flow completed, every item completed, and the model was
 * called exactly once per item.
 *   node --expose-gc --import tsx bench/map.ts [--items N] [--rounds R] [--store sqlite|memory]
 *     [--concurrency C] [--model scripted|plain] [--cases map,forEach] [--built]
 * `--model scripted` (the default) is `createScriptedModel`, which records every request it gets;
 * `--model plain` a function that only answers. `--cases map` runs one case (for a CPU profile).
 * `--built` runs the built package (`npm run build` first) instead of the sources through the loader.
 * `--live` adds, after the rounds, one untimed run of each case with a forced collection every 5 s:
 * the most heap it held at once (its live set, not its garbage), per item. Collecting a heap of
 * hundreds of MB is slow on a loaded host: `--live` with fewer `--items` is quicker.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  type Api,
  CASES,
  type CaseName,
  checkRun,
  flowOf,
  freshStore,
  loadApi,
  oneTaskCrew,
} from './map-cases.js';
import { type Watched, watchCase, watchLiveHeap } from './map-watch.js';

const collect = (globalThis as { gc?: () => void }).gc ?? (() => {});
/** Items of the warm-up round (not reported). */
const WARM_UP_ITEMS = 200;
/** How long each round watches the loop with nothing running, ms. */
const IDLE_MS = 1000;

/** The command line. */
function parseArgs(argv: readonly string[]) {
  const value = (flag: string) => {
    const at = argv.indexOf(flag);
    return at === -1 ? undefined : argv[at + 1];
  };
  const whole = (flag: string, fallback: number, least: number) => {
    const n = Number(value(flag) ?? fallback);
    if (!Number.isSafeInteger(n) || n < least) throw new Error(`${flag}: a whole number ≥ ${least}`);
    return n;
  };
  const store = value('--store') ?? 'sqlite';
  if (store !== 'sqlite' && store !== 'memory') throw new Error(`--store sqlite|memory, not ${store}`);
  const model = value('--model') ?? 'scripted';
  if (model !== 'scripted' && model !== 'plain') throw new Error(`--model scripted|plain, not ${model}`);
  const cases = (value('--cases') ?? CASES.join(',')).split(',');
  for (const name of cases) {
    if (!(CASES as readonly string[]).includes(name))
      throw new Error(`--cases: map and/or forEach, not ${name}`);
  }
  return {
    items: whole('--items', 10_000, 1),
    rounds: whole('--rounds', 5, 1),
    concurrency: whole('--concurrency', 4, 1),
    store: store as 'sqlite' | 'memory',
    model: model as 'scripted' | 'plain',
    cases: cases as CaseName[],
    built: argv.includes('--built'),
    live: argv.includes('--live'),
  };
}

type Args = ReturnType<typeof parseArgs>;
type Row = CaseName | 'idle';
interface Sample extends Watched {
  ms: number;
}

/** One run of a case over `n` items, on a store of its own, watched and checked. */
async function runCase(api: Api, name: CaseName, n: number, args: Args, at: { dir: string; run: number }) {
  const items = Array.from({ length: n }, (_, i) => ({ n: i }));
  const { crew, calls } = oneTaskCrew(api, args.model);
  const store = freshStore(api, args.store, at.dir, at.run);
  const flow = flowOf(api, name, { store, items, crew, concurrency: args.concurrency });
  collect();
  const watch = watchCase();
  const started = performance.now();
  const out = await flow.kickoff();
  const sample: Sample = { ms: performance.now() - started, ...watch.stop() };
  checkRun(name, out, n, calls());
  await store.close();
  return sample;
}

/** One untimed run of each case, collected every 5 s: the most heap it held at once. */
async function liveHeap(api: Api, args: Args, dir: string): Promise<string> {
  const held: string[] = [];
  for (const [i, name] of args.cases.entries()) {
    const { crew, calls } = oneTaskCrew(api, args.model);
    const store = freshStore(api, args.store, dir, 1_000_000 + i);
    const items = Array.from({ length: args.items }, (_, n) => ({ n }));
    const flow = flowOf(api, name, { store, items, crew, concurrency: args.concurrency });
    const watch = watchLiveHeap();
    const out = await flow.kickoff();
    const mb = watch.stop();
    checkRun(name, out, args.items, calls());
    await store.close();
    held.push(`${LABELS[name]} ${mb.toFixed(0)} MB (${((mb * 1024) / args.items).toFixed(1)} KB per item)`);
  }
  return `live heap high water (a collection every 5 s, one run each): ${held.join(', ')}`;
}

/** A second with nothing running, watched: the loop delay the host gives. */
async function idle(): Promise<Sample> {
  collect();
  const watch = watchCase();
  const started = performance.now();
  await sleep(IDLE_MS);
  return { ms: performance.now() - started, ...watch.stop() };
}

/** Every case once per round, the order reversed every other round; round 0 a small warm-up. */
async function alternate(api: Api, args: Args, dir: string) {
  const samples = new Map<Row, Sample[]>([...args.cases, 'idle' as const].map((name) => [name, []]));
  let run = 0;
  for (let round = 0; round <= args.rounds; round += 1) {
    const order = round % 2 === 1 ? [...args.cases].reverse() : args.cases;
    const n = round === 0 ? Math.min(args.items, WARM_UP_ITEMS) : args.items;
    for (const name of order) {
      run += 1;
      const sample = await runCase(api, name, n, args, { dir, run });
      if (round === 0) continue;
      samples.get(name)?.push(sample);
      console.error(
        `round ${round} ${name}: ${sample.ms.toFixed(0)} ms, RSS +${sample.rssRiseMb.toFixed(0)} MB`,
      );
    }
    if (round > 0) samples.get('idle')?.push(await idle());
  }
  return samples;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
const spread = (xs: number[], digits: number) =>
  `${median(xs).toFixed(digits)} (${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)})`;

/** The commit this tree is on (`+` when its sources have changes), or `unknown`. */
function commit(): string {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'src'], { encoding: 'utf8' }).trim();
    return dirty === '' ? head : `${head}+`;
  } catch {
    return 'unknown';
  }
}

const LABELS: Record<Row, string> = {
  map: '`flow.map`',
  forEach: '`kickoffForEach` in a step',
  idle: `nothing running (${IDLE_MS / 1000} s)`,
};

/** One row of the table: medians with ranges over the rounds. */
function row(name: Row, samples: readonly Sample[], items: number): string {
  const column = (pick: (s: Sample) => number, digits: number) => spread(samples.map(pick), digits);
  const work = name !== 'idle';
  const cells = [
    work ? column((s) => s.ms, 0) : '',
    work ? median(samples.map((s) => (s.ms * 1000) / items)).toFixed(0) : '',
    column((s) => s.rssRiseMb, 0),
    column((s) => s.heapPeakMb, 0),
    column((s) => s.heapRiseMb, 0),
    column((s) => s.loopMaxMs, 0),
    column((s) => s.loopP99Ms, 1),
  ];
  return `| ${LABELS[name]} | ${cells.join(' | ')} |`;
}

/** Prints the table of each case and the map/forEach ratios of the rounds. */
function report(args: Args, samples: Map<Row, Sample[]>) {
  console.log(
    '| case | ms, median (min–max) | µs per item | RSS rise MB | heap peak MB | heap rise MB | ' +
      'loop delay max ms | loop delay p99 ms |\n' +
      '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  );
  for (const [name, rows] of samples) console.log(row(name, rows, args.items));
  const map = samples.get('map');
  const forEach = samples.get('forEach');
  if (map === undefined || forEach === undefined) return;
  const ratio = (pick: (s: Sample) => number) =>
    spread(
      map.map((s, i) => pick(s) / pick(forEach[i] as Sample)),
      2,
    );
  console.log(
    `\nmap / forEach per round, median (min–max): time ${ratio((s) => s.ms)}, ` +
      `heap peak ${ratio((s) => s.heapPeakMb)}, heap rise ${ratio((s) => s.heapRiseMb)}`,
  );
}

const loads = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
const args = parseArgs(process.argv.slice(2));
const api = await loadApi(args.built);
const dir = mkdtempSync(join(tmpdir(), 'statecrew-map-bench-'));
try {
  const gc =
    (globalThis as { gc?: unknown }).gc === undefined ? ' (no --expose-gc: no collection before runs)' : '';
  console.log(
    `node ${process.version}, commit ${commit()}${args.built ? ' (built)' : ''}, ` +
      `${cpus().length} × ${cpus()[0]?.model ?? '?'}, load ${loads()}; ${args.items} items of a one-task crew, ` +
      `concurrency ${args.concurrency}, ${args.store} store, ${args.model} model; ${args.rounds} rounds ` +
      `alternated (+1 warm-up of ${Math.min(args.items, WARM_UP_ITEMS)} items)${gc}\n`,
  );
  report(args, await alternate(api, args, dir));
  if (args.live) console.log(`\n${await liveHeap(api, args, dir)}`);
  const peak = process.resourceUsage().maxRSS / 1024;
  console.log(`\nprocess peak RSS ${peak.toFixed(0)} MB; load now ${loads()}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
