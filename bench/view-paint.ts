/**
 * How fast the run view of a big run is drawn, and how fast it answers in a browser:
 *   render   ms for `renderRunView` to write the page of a graph crew (plan → N checks → report,
 *            two checks failed, the report blocked), in Node
 *   load     ms from the page's navigation to its first paint after the load event, in Chromium
 *   zoom     ms from a click on the zoom-in button to the page painted after it (two animation frames)
 *   search   ms from typing a search (`check-49`) to the page painted with its matches
 *   jump     ms from a click on a failure in the list to the page painted with its details
 * Each is the median and the range (min–max) over `reps` repetitions after one not counted, for
 * every size N; the browser part needs Debian's Chromium (`CHROMIUM=<path>` for another).
 *
 * Run: npm run build && npx tsx bench/view-paint.ts [reps] [N…]      (default: 15 200 500 1000)
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type Browser, chromium, type Page } from 'playwright-core';
import type { StatecrewEvent } from '../src/index.js';
import type { RunView } from '../src/view/index.js';
import { statecrew, view } from './built.js';

const { Agent, Crew, Task } = statecrew;
const [repsArg, ...sizeArgs] = process.argv.slice(2);
const reps = Number(repsArg ?? 15);
const sizes = sizeArgs.length > 0 ? sizeArgs.map(Number) : [200, 500, 1000];
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--no-first-run',
];
const FAILING = new Set(['Task: Check item 7', 'Task: Check item 150']);

/** `plan` → `count` checks → `report` (a graph crew); checks 7 and 150 fail, so `report` is blocked. */
async function bigRun(count: number): Promise<RunView> {
  const llm = (prompt: string) => {
    if (FAILING.has(prompt.split('\n').find((line) => line.startsWith('Task: ')) ?? '')) {
      throw new Error('source gone');
    }
    return 'checked';
  };
  const checker = new Agent({ role: 'Checker', llm, maxRetries: 0 });
  const auditor = new Agent({ role: 'Auditor', llm, maxRetries: 0 });
  const plan = new Task({ name: 'plan', description: 'Plan the checks', agent: checker });
  const checks = Array.from(
    { length: count },
    (_, i) =>
      new Task({
        name: `check-${i}`,
        description: `Check item ${i}`,
        agent: i % 50 === 0 ? auditor : checker,
        context: [plan],
      }),
  );
  const report = new Task({ name: 'report', description: 'Report', agent: checker, context: checks });
  const crew = new Crew({ name: 'audit', tasks: [plan, ...checks, report], process: 'graph' });
  const run = crew.run();
  const events: StatecrewEvent[] = [];
  run.events$.subscribe((e) => events.push(e));
  return view.toCrewView(crew, { output: await run.result, events });
}

/** `reps` timings of `measure` (in ms) after one not counted. */
async function timings(measure: () => Promise<number> | number): Promise<number[]> {
  await measure();
  const times: number[] = [];
  for (let i = 0; i < reps; i += 1) times.push(await measure());
  return times;
}

const rows: string[] = [];
function report(size: number, nodes: number, what: string, times: number[]): void {
  const sorted = [...times].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)] as number;
  const range = `${(sorted[0] as number).toFixed(1)}–${(sorted.at(-1) as number).toFixed(1)}`;
  rows.push(`| ${size} | ${nodes} | ${what} | ${median.toFixed(1)} | ${range} |`);
  console.log(rows.at(-1));
}

/** ms from `action` (page script) until the page painted after it. */
const painted = (page: Page, action: string) =>
  page.evaluate(`(async () => {
    const started = performance.now();
    ${action};
    await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
    return performance.now() - started;
  })()`) as Promise<number>;

const fit = `document.querySelector('[data-zoom="fit"]').click()`;
const search = (text: string) => `(() => {
  const input = document.getElementById('graph-search');
  input.value = ${JSON.stringify(text)};
  input.dispatchEvent(new Event('input'));
})()`;

async function inBrowser(browser: Browser, file: string, size: number, nodes: number): Promise<void> {
  const url = pathToFileURL(file).href;
  const load = await timings(async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await page.goto(url);
    const ms = (await page.evaluate(
      'new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(() => done(performance.now()))))',
    )) as number;
    await page.close();
    return ms;
  });
  report(size, nodes, 'load', load);
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  await page.goto(url);
  report(
    size,
    nodes,
    'zoom',
    await timings(async () => {
      await painted(page, fit);
      return painted(page, `document.querySelector('[data-zoom="in"]').click()`);
    }),
  );
  report(
    size,
    nodes,
    'search',
    await timings(async () => {
      await painted(page, search(''));
      return painted(page, search('check-49'));
    }),
  );
  await painted(page, search(''));
  report(
    size,
    nodes,
    'jump',
    await timings(async () => {
      await painted(page, fit);
      return painted(page, `document.querySelector('[data-failure="check-150"]').click()`);
    }),
  );
  await page.close();
}

const folder = await mkdtemp(join(tmpdir(), 'statecrew-view-paint-'));
const browser = existsSync(CHROMIUM)
  ? await chromium.launch({ executablePath: CHROMIUM, args: FLAGS })
  : undefined;
if (browser === undefined) console.log(`No Chromium at ${CHROMIUM}: the render times only.`);
console.log(`Node ${process.version}, ${reps} repetitions after one not counted`);
console.log('| N | nodes | what | median ms | min–max ms |\n|---:|---:|---|---:|---:|');
try {
  for (const size of sizes) {
    const run = await bigRun(size);
    report(
      size,
      run.nodes.length,
      'render',
      await timings(() => {
        const started = performance.now();
        view.renderRunView(run);
        return performance.now() - started;
      }),
    );
    if (browser === undefined) continue;
    const file = await view.writeRunView(run, join(folder, `view-${size}.html`));
    await inBrowser(browser, file, size, run.nodes.length);
  }
} finally {
  await browser?.close();
  await rm(folder, { recursive: true, force: true });
}
