/**
 * What a large input costs the host's event loop: a crew of one task and a flow of one step, each
 * kicked off on a SQLite file store with an input of SIZE_MB — one long string (`text`), and an
 * array of SIZE_MB × 20,000 small objects (`rows`, 0.9 MiB of JSON per 20,000) — while the host
 * counts its timer ticks (a 10 ms `setInterval`) and
 * the longest gap between two turns of its loop. Builds alternate run by run in this one process:
 * copy `dist/` of each commit to a directory of its own inside this repository (so its
 * dependencies resolve), then
 *   node --import tsx bench/big-input.ts ROUNDS SIZE_MB DIR_A DIR_B …
 * A build that refuses the input says so (`refused <code>`): its kickoff time is then the time to
 * the refusal, what the host waited. Medians with [min–max] over the rounds.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { watchStalls } from './stall-probe.js';

type Api = typeof import('../src/index.js');
type Kickoff = (inputs: Record<string, unknown>, store: InstanceType<Api['SqliteStore']>) => Promise<unknown>;
interface Sample {
  ms: number;
  stallMs: number;
  ticks: number;
  refused?: string;
}

const [roundsArg = '5', sizeArg = '20', ...dirs] = process.argv.slice(2);
const ROUNDS = Number(roundsArg);
const MB = 1024 * 1024;
const SIZE = Number(sizeArg);

/** The two inputs of SIZE MB: one string, and an array of about SIZE MB of JSON in small objects. */
const INPUTS: Record<string, () => Record<string, unknown>> = {
  text: () => ({ topic: 'AI', text: 'x'.repeat(Math.floor(SIZE * MB) - 40) }),
  rows: () => ({
    topic: 'AI',
    rows: Array.from({ length: Math.floor(SIZE * 20_000) }, (_, i) => ({
      id: i,
      name: `row ${i}`,
      tags: ['a', 'b'],
    })),
  }),
};

async function kickoffsOf(dir: string): Promise<Record<'crew' | 'flow', Kickoff>> {
  const api = (await import(pathToFileURL(resolve(dir, 'index.js')).href)) as Api;
  const agent = new api.Agent({ role: 'Writer', llm: () => 'done' });
  const crew = new api.Crew({
    tasks: [new api.Task({ name: 'write', description: 'Write about {topic}', agent })],
  });
  const flow = api.createFlow({ name: 'big', initialState: {} }).start('first', () => 'done');
  return {
    crew: (inputs, store) => crew.kickoff({ inputs, store }),
    flow: (inputs, store) => flow.kickoff({ inputs, store }),
  };
}

/** One kickoff, watched: its time, the longest stall and the 10 ms ticks the host got meanwhile. */
async function measure(run: () => Promise<unknown>): Promise<Sample> {
  let ticks = 0;
  const timer = setInterval(() => {
    ticks += 1;
  }, 10);
  const stalls = watchStalls();
  const started = performance.now();
  let refused: string | undefined;
  try {
    await run();
  } catch (error) {
    refused = (error as { code?: string }).code ?? String(error);
  }
  const ms = performance.now() - started;
  const stallMs = stalls.stop();
  clearInterval(timer);
  return { ms, stallMs, ticks, ...(refused === undefined ? {} : { refused }) };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const range = (xs: number[]) =>
  `${median(xs).toFixed(0)} [${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)}]`;

const folder = mkdtempSync(join(tmpdir(), 'statecrew-big-input-'));
const builds = await Promise.all(dirs.map(async (dir) => ({ dir, kickoffs: await kickoffsOf(dir) })));
const { SqliteStore } = (await import(pathToFileURL(resolve(dirs[0] ?? 'dist', 'index.js')).href)) as Api;
const samples = new Map<string, Sample[]>();
let file = 0;
for (let round = 0; round < ROUNDS; round += 1) {
  const order = round % 2 === 0 ? builds : [...builds].reverse();
  for (const [inputName, makeInputs] of Object.entries(INPUTS)) {
    for (const kind of ['crew', 'flow'] as const) {
      for (const { dir, kickoffs } of order) {
        const inputs = makeInputs();
        file += 1;
        const store = new SqliteStore({ path: join(folder, `run-${file}.db`) });
        const sample = await measure(() => kickoffs[kind](inputs, store));
        await store.close();
        const key = `${kind} ${inputName} ${dir}`;
        samples.set(key, [...(samples.get(key) ?? []), sample]);
      }
    }
  }
}
rmSync(folder, { recursive: true, force: true });
console.log(`${SIZE} MB inputs on SQLite, ${ROUNDS} rounds: median [min–max]`);
for (const [key, list] of samples) {
  const refused = list.find((s) => s.refused !== undefined)?.refused;
  console.log(
    `${key.padEnd(40)} kickoff ${range(list.map((s) => s.ms))} ms, longest stall ${range(list.map((s) => s.stallMs))} ms, ticks ${range(list.map((s) => s.ticks))}${refused === undefined ? '' : `, refused ${refused}`}`,
  );
}
