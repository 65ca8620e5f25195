import { mkdir } from 'node:fs/promises';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFlow } from '../../src/index.js';
import { createServer, type Listening, listen, type StatecrewServer } from '../../src/serve/index.js';
import { TOKEN, tempStore } from '../serve/serve-helpers.js';
import { reviewFlow, summarizeCrew } from '../view/compose-fixtures.js';
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

if (optedOut) warnSkipped("the studio's composed runs browser test");

/** How long a poll waits for the page: generous, for a loaded 2-core machine. */
const WAIT = 30_000;

/** A digest: its documents summarized by a map of crews, then the digest reviewed by a child flow. */
function digestFlow() {
  return createFlow({ name: 'digest', initialState: { docs: ['a', 'b', 'c', 'd', 'e'] } })
    .start('fetch', ({ state }) => state.docs)
    .map('summaries', 'fetch', { items: ({ state }) => state.docs, run: summarizeCrew(), concurrency: 2 })
    .flow('review', 'summaries', reviewFlow())
    .listen('report', 'review', () => 'reported');
}

describe.skipIf(optedOut)('the studio draws real composed runs in Chromium', { timeout: 120_000 }, () => {
  let browser: Browser | undefined;
  let opened: Page | undefined;
  let server: StatecrewServer;
  let listening: Listening;
  let temp: ReturnType<typeof tempStore>;
  let runId = '';
  const problems: string[] = [];
  const dialogs: string[] = [];
  const requests: string[] = [];

  const page = (): Page => {
    if (!hasChromium) throw missingChromium();
    if (opened === undefined) throw new Error('The studio did not open in Chromium');
    return opened;
  };
  const node = (id: string) => page().locator(`#graph-viewport svg.graph [data-node="${id}"]`);
  const open = (id: string) =>
    page().evaluate(`location.hash = '#run=' + encodeURIComponent(${JSON.stringify(id)})`);

  beforeAll(async () => {
    if (!hasChromium) return;
    temp = tempStore();
    server = createServer({ flows: [digestFlow()], store: temp.store, token: TOKEN, runner: false });
    listening = await listen(server, { port: 0 });
    await mkdir(ARTIFACTS, { recursive: true });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
    const tab = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    opened = tab;
    // A 401 before the token is given is the studio asking for it; any other error is a problem.
    watchPage(tab, { requests, dialogs, problems }, (text) => text.includes('401'));
    await tab.goto(`${listening.url}/`);
    const response = await fetch(`${listening.url}/runs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ definition: 'digest', inputs: {} }),
    });
    if (response.status !== 201 && response.status !== 202 && response.status !== 200)
      throw new Error(`POST /runs: ${response.status} ${await response.text()}`);
    runId = ((await response.json()) as { id: string }).id;
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await listening?.close();
    await temp?.dispose();
  });

  it('shows the finished map step as a group with its counts, and the flow step paused in its child', async () => {
    await expect.poll(() => page().locator('#token-card').isVisible(), { timeout: WAIT }).toBe(true);
    await page().locator('#token-input').fill(TOKEN);
    await page().locator('#token-input').press('Enter');
    await open(runId);
    const counts = node('summaries').locator('.map-counts');
    await expect.poll(() => counts.getAttribute('data-total'), { timeout: WAIT }).toBe('5');
    expect(await counts.getAttribute('data-completed')).toBe('5');
    expect(await counts.getAttribute('data-failed')).toBe('0');
    expect(await node('summaries').getAttribute('data-status')).toBe('completed');
    await expect.poll(() => node('review').getAttribute('data-status'), { timeout: WAIT }).toBe('paused');
    expect(await node('review').textContent()).toContain('waits at review › approve');
    const steps = node('review').locator('.subflow [data-sub-step]');
    expect(
      await steps.evaluateAll((list) =>
        list.map((e) => `${e.getAttribute('data-sub-step')}:${e.getAttribute('data-status')}`),
      ),
    ).toEqual(['draft:completed', 'approve:paused', 'publish:waiting']);
    await page().screenshot({ path: `${ARTIFACTS}studio-compose-paused.png` });
  });

  it('expands the map step to its items, each linking its stored crew run', async () => {
    await node('summaries').click();
    const items = page().locator('#panel .map-item');
    await expect.poll(() => items.count(), { timeout: WAIT }).toBe(5);
    await page().locator('#panel .map-items summary').click();
    expect(await items.evaluateAll((list) => list.map((e) => e.getAttribute('data-status')))).toEqual(
      Array(5).fill('completed'),
    );
    const link = items.nth(1).locator('a.child-run');
    expect(await link.getAttribute('data-child-run')).toBe(`${runId}/summaries/1`);
    await link.click();
    // The item's child run is a crew run of its own: its task drawn, completed.
    await expect.poll(() => node('sum').getAttribute('data-status'), { timeout: WAIT }).toBe('completed');
    expect(await page().locator('#run-header').textContent()).toContain('summarize');
  });

  it("answers the child's human step through the parent, and the run goes on to complete", async () => {
    await open(runId);
    const form = page().locator('#wait-forms [data-wait-path="review › approve"]');
    await expect.poll(() => form.count(), { timeout: WAIT }).toBe(1);
    await form.locator('button[value="yes"]').click();
    await expect.poll(() => node('report').getAttribute('data-status'), { timeout: WAIT }).toBe('completed');
    await expect
      .poll(() => page().locator('#run-header .badge').textContent(), { timeout: WAIT })
      .toBe('completed');
    expect(await node('review').getAttribute('data-status')).toBe('completed');
    expect(await node('review').textContent()).not.toContain('waits at');
    await expect.poll(() => page().locator('#waits').isVisible(), { timeout: WAIT }).toBe(false);
  });

  it("opens the child flow's own run from the flow step's link", async () => {
    await node('review').click();
    const link = page().locator('#panel .subflow-part a.child-run');
    await expect.poll(() => link.getAttribute('data-child-run'), { timeout: WAIT }).toBe(`${runId}/review`);
    await link.click();
    await expect.poll(() => node('publish').getAttribute('data-status'), { timeout: WAIT }).toBe('completed');
    expect(await node('approve').getAttribute('data-status')).toBe('completed');
  });

  it('runs no script error and asks nothing of another server', () => {
    expect(problems).toEqual([]);
    expect(dialogs).toEqual([]);
    expect(requests.filter((url) => !url.startsWith(listening.url))).toEqual([]);
  });
});
