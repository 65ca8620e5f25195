/**
 * Two builds of statecrew's flows against each other, alternated in one process (which goes first
 * alternates too), a forced GC before each timing: `analyze()` and `toMachine()` of a 1,000-step chain,
 * `analyze()` of 12 sequential binary routers, and a 1,000-step run without a store. Copy `dist/` of
 * each commit to a directory inside this repository (so `xstate` resolves), then
 *   node --expose-gc --import tsx bench/flow-builds.ts ROUNDS DIR_BEFORE DIR_AFTER
 * Prints each build's median and the median (and range) of the per-round ratios after/before.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

type Api = typeof import('../src/index.js');

const [roundsArg = '9', ...dirs] = process.argv.slice(2);
const ROUNDS = Number(roundsArg);
const apis = await Promise.all(
  dirs.map(async (d) => (await import(pathToFileURL(resolve(d, 'index.js')).href)) as Api),
);
const noop = () => undefined;

function chain(api: Api, n: number) {
  let flow = api.createFlow({ name: 'chain', initialState: {} }).start('s0', noop);
  for (let i = 1; i < n; i += 1) flow = flow.listen(`s${i}`, `s${i - 1}`, noop);
  return flow;
}
function routers(api: Api, n: number) {
  let flow = api.createFlow({ name: 'routers', initialState: {} }).start('s', noop);
  for (let i = 1; i <= n; i += 1)
    flow = flow.router(`r${i}`, i === 1 ? 's' : `r${i - 1}`, () => `a${i}`, { routes: [`a${i}`, `b${i}`] });
  return flow;
}
const cases: Record<string, (api: Api) => () => Promise<unknown> | unknown> = {
  'analyze chain 1000': (api) => {
    const f = chain(api, 1000);
    return () => f.analyze();
  },
  'toMachine chain 1000': (api) => {
    const f = chain(api, 1000);
    return () => f.toMachine();
  },
  'analyze 12 routers': (api) => {
    const f = routers(api, 12);
    return () => f.analyze();
  },
  'run chain 1000': (api) => {
    const f = chain(api, 1000);
    return () => f.kickoff();
  },
};
for (const [name, make] of Object.entries(cases)) {
  const runs = apis.map(make);
  for (const run of runs) await run(); // warm up
  const times: number[][] = apis.map(() => []);
  for (let r = 0; r < ROUNDS; r += 1) {
    for (let i = 0; i < runs.length; i += 1) {
      const k = (r + i) % runs.length; // alternate which goes first
      (globalThis as { gc?: () => void }).gc?.();
      const t = performance.now();
      await (runs[k] as () => unknown)();
      (times[k] as number[]).push(performance.now() - t);
    }
  }
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
  const [before = [], after = []] = times;
  const ratios = after.map((t, i) => t / (before[i] as number)).sort((a, b) => a - b);
  const medians = dirs.map((d, i) => `${d.split('/').pop()} ${med(times[i] ?? []).toFixed(1)} ms`);
  const range = `${(ratios[0] as number).toFixed(2)}–${(ratios.at(-1) as number).toFixed(2)}`;
  console.log(`${name}: ${medians.join(', ')}; ratio median ${med(ratios).toFixed(2)} (${range})`);
}
