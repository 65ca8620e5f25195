/**
 * `bench/hundred-thousand.ts` for several builds (copies of `dist/` in this repository) and,
 * with `floor` among them, the one-actor floor, each run in a fresh process, alternated run by run
 * (the order reversed every other round), then medians and ranges of each figure per build, and the
 * load average before and after:
 *   npx tsx bench/hundred-thousand-builds.ts ROUNDS N DIR_A DIR_B [floor]
 */
import { execFileSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';

const [roundsArg = '3', nArg = '100000', ...builds] = process.argv.slice(2);
const script = fileURLToPath(new URL('./hundred-thousand.ts', import.meta.url));
const FIGURES = [
  'constructionMs',
  'tasksMs',
  'crewMs',
  'constructionCpuMs',
  'kickoffMs',
  'seconds',
  'longestStallMs',
  'peakRssMB',
] as const;

/** One run of `build` in a fresh process: its JSON line. */
function runOnce(build: string): Record<string, unknown> {
  const args = ['--import', 'tsx', script, nArg, ...(build === 'floor' ? ['floor'] : ['--build', build])];
  const out = execFileSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 1 << 24 });
  return JSON.parse(out.trim().split('\n').at(-1) as string) as Record<string, unknown>;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
};

const loadBefore = loadavg()[0] as number;
const results = new Map<string, Record<string, unknown>[]>(builds.map((b) => [b, []]));
for (let round = 0; round < Number(roundsArg); round += 1) {
  const order = round % 2 === 0 ? builds : [...builds].reverse();
  for (const build of order) {
    const result = runOnce(build);
    results.get(build)?.push(result);
    console.log(JSON.stringify({ round, ...result, load: Number((loadavg()[0] as number).toFixed(1)) }));
  }
}
for (const [build, runs] of results) {
  const summary: Record<string, string> = {};
  for (const figure of FIGURES) {
    const values = runs.map((r) => r[figure]).filter((v): v is number => typeof v === 'number');
    if (values.length === 0) continue;
    summary[figure] = `${median(values)} (${Math.min(...values)}–${Math.max(...values)})`;
  }
  console.log(JSON.stringify({ build, runs: runs.length, ...summary }));
}
console.log(JSON.stringify({ loadBefore, loadAfter: loadavg()[0] }));
