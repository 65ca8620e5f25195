import { mkdir } from 'node:fs/promises';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evaluate } from '../../src/evals/evaluate.js';
import type { EvalReport, ScoreInput } from '../../src/evals/types.js';
import { createFlow } from '../../src/index.js';
import { createServer, type Listening, listen, type StatecrewServer } from '../../src/serve/index.js';
import { TOKEN, tempStore } from '../serve/serve-helpers.js';
import {
  ARTIFACTS,
  CHROMIUM,
  FLAGS,
  hasChromium,
  missingChromium,
  optedOut,
  warnSkipped,
  watchPage,
} from './chromium.js';

if (optedOut) warnSkipped("the studio's evals page browser test");

/** How long a poll waits for the page: generous, for a loaded 2-core machine. */
const WAIT = 30_000;

/** A triage flow: a router sends a bug to `fix`, a question to `answer`, spam to `drop`. */
function triageFlow() {
  return createFlow({ name: 'triage', initialState: { kind: '' } })
    .start('classify', ({ state }) => state.kind)
    .router(
      'route',
      'classify',
      ({ state }) => (state.kind === 'bug' ? 'bug' : state.kind === 'question' ? 'question' : 'spam'),
      { routes: ['bug', 'question', 'spam'] },
    )
    .listen('fix', 'bug', () => 'fixed')
    .listen('answer', 'question', () => 'answered')
    .listen('drop', 'spam', () => 'dropped');
}

/** Whether the run's output says it fixed something, and why. */
const saysFixed = ({ text }: ScoreInput) =>
  text.includes('fixed')
    ? { score: 1, reason: 'the output says fixed' }
    : { score: 0, reason: 'the output never says fixed' };

describe.skipIf(optedOut)('the studio shows evaluation reports in Chromium', { timeout: 180_000 }, () => {
  let browser: Browser | undefined;
  let opened: Page | undefined;
  let server: StatecrewServer;
  let listening: Listening;
  let temp: ReturnType<typeof tempStore>;
  let older: EvalReport;
  let report: EvalReport;
  const problems: string[] = [];

  const page = (): Page => {
    if (!hasChromium) throw missingChromium();
    if (opened === undefined) throw new Error('The studio did not open in Chromium');
    return opened;
  };
  const cases = () => page().locator('#eval-cases tr[data-case]');

  beforeAll(async () => {
    if (!hasChromium) return;
    temp = tempStore();
    const flow = triageFlow();
    server = createServer({ flows: [flow], store: temp.store, token: TOKEN, runner: false });
    listening = await listen(server, { port: 0 });
    const scorers = { fixed: saysFixed };
    // evaluate keeps each report in the store it is given, beside its runs.
    older = await evaluate({
      target: flow,
      dataset: [{ inputs: { kind: 'bug' } }],
      scorers,
      store: temp.store,
    });
    // Two cases, a bug and a question (its id hostile markup): no case is spam, so `spam` is never taken.
    const dataset = [
      { id: 'bug', inputs: { kind: 'bug' } },
      { id: '<img src=x onerror=alert(1)>', inputs: { kind: 'question' } },
    ];
    report = await evaluate({ target: flow, dataset, scorers, store: temp.store });
    await mkdir(ARTIFACTS, { recursive: true });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
    const tab = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    opened = tab;
    // A 401 before the token is given is the studio asking for it; any other error is a problem.
    watchPage(tab, { requests: [], dialogs: [], problems }, (text) => text.includes('401'));
    await tab.goto(`${listening.url}/`);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await listening?.close();
    await temp?.dispose();
  });

  it('lists the reports newest first from the Evals link, reached by keyboard', async () => {
    await expect.poll(() => page().locator('#token-card').isVisible(), { timeout: WAIT }).toBe(true);
    await page().locator('#token-input').fill(TOKEN);
    await page().locator('#token-input').press('Enter');
    await page().locator('#nav-evals').focus();
    await page().keyboard.press('Enter');
    const rows = page().locator('#evals-rows tr');
    await expect.poll(() => rows.count(), { timeout: WAIT }).toBe(2);
    expect(await rows.evaluateAll((list) => list.map((r) => r.getAttribute('data-eval-id')))).toEqual([
      report.id,
      older.id,
    ]);
    const cells = await rows.first().locator('td').allTextContents();
    expect(cells[0]).toBe('flow triage');
    expect(cells[2]).toBe('2');
    expect(cells[3]).toBe((report.summary.scorers.fixed?.mean ?? Number.NaN).toFixed(2));
    const heads = (await (
      await server.request('/evals', { headers: { authorization: `Bearer ${TOKEN}` } })
    ).json()) as {
      reports: { id: string; coverage: number }[];
    };
    const head = heads.reports.find((h) => h.id === report.id);
    expect(cells[4]).toBe(`${Math.round((head?.coverage ?? Number.NaN) * 100)}%`);
    expect(await page().locator('#nav-evals').getAttribute('aria-current')).toBe('page');
    expect(await page().locator('#studio-runs').isVisible()).toBe(false);
  });

  it("opens a report: each scorer's mean, and each case's score with its reason on hover", async () => {
    await page().locator(`#evals-rows tr[data-eval-id="${report.id}"] a.eval-open`).click();
    await expect.poll(() => cases().count(), { timeout: WAIT }).toBe(2);
    expect(await page().locator('#eval-title').textContent()).toBe('flow triage');
    const mean = page().locator('#eval-scorers tr[data-scorer="fixed"] td').nth(2);
    expect(await mean.textContent()).toBe((report.summary.scorers.fixed?.mean ?? Number.NaN).toFixed(2));
    for (const [i, result] of report.cases.entries()) {
      const score = cases().nth(i).locator('.score');
      expect(await score.textContent()).toBe(result.scores.fixed?.score.toFixed(2));
      expect(await score.getAttribute('title')).toBe(result.scores.fixed?.reason);
    }
    // The hostile case id is text: no element was made of it.
    expect(await page().locator('#eval-cases img').count()).toBe(0);
    expect(await cases().evaluateAll((list) => list.map((r) => r.getAttribute('data-case')))).toEqual(
      report.cases.map((c) => c.caseId),
    );
  });

  it('draws the coverage: the route no case took dashed red with the class untaken, and names it', async () => {
    const untaken = page().locator('#eval-coverage-picture svg .coverage-edge.untaken');
    await expect.poll(() => untaken.count(), { timeout: WAIT }).toBe(1);
    expect(await untaken.getAttribute('data-from')).toBe('route');
    expect(await untaken.getAttribute('data-to')).toBe('drop');
    expect(await untaken.locator('title').textContent()).toContain('never taken by the dataset');
    expect(await untaken.locator('path').getAttribute('stroke-dasharray')).toBe('6 4');
    const taken = page().locator('#eval-coverage-picture svg .coverage-edge.covered');
    expect(await taken.count()).toBe(3);
    const routes = await page().locator('#eval-uncovered [data-uncovered="routes"] li').allTextContents();
    expect(routes).toEqual(report.coverage.routes.uncovered);
    expect(routes.join(' ')).toContain('spam');
    expect(await page().locator('#eval-uncovered [data-uncovered="nodes"] li').allTextContents()).toEqual([
      'drop',
    ]);
    await page().screenshot({ path: `${ARTIFACTS}studio-evals.png`, fullPage: true });
  });

  it("opens a case's run in the run view from its link", async () => {
    const bug = report.cases.find((c) => c.caseId === 'bug');
    await page().locator('#eval-cases tr[data-case="bug"] a.eval-run').click();
    await expect.poll(() => page().locator('#run-area').isVisible(), { timeout: WAIT }).toBe(true);
    expect(await page().evaluate('location.hash')).toBe(`#run=${encodeURIComponent(bug?.runId ?? '')}`);
    const fix = page().locator('#graph-viewport svg.graph [data-node="fix"]');
    await expect.poll(() => fix.getAttribute('data-status'), { timeout: WAIT }).toBe('completed');
    expect(await page().locator('#run-header').textContent()).toContain('triage');
    expect(await page().locator('#evals-area').isVisible()).toBe(false);
    expect(problems).toEqual([]);
  });
});
