import { mkdir } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StatecrewEvent } from '../../src/index.js';
import { PATH_SEPARATOR } from '../../src/machines/flow/waits.js';
import { toFlowView, writeRunView } from '../../src/view/index.js';
import { digestFlow, itemEvents, stamp } from '../view/compose-fixtures.js';
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

if (optedOut) warnSkipped("the composed run view's browser test");

/** A digest run paused in its review subflow after a 10,000-item map with a few failed and running items. */
function digestEvents(): StatecrewEvent[] {
  const step = (name: string, status: string) => ({ type: 'flow.step', name, nodeId: name, run: 1, status });
  const outcome = (i: number) => (i % 2500 === 3 ? 'failed' : i >= 9_995 ? 'running' : 'completed');
  const path = ['review', 'approve'].join(PATH_SEPARATOR);
  return [
    ...stamp('d-1', [
      { type: 'run.started', name: 'digest', process: 'flow', nodes: 4 },
      step('fetch', 'started'),
      step('fetch', 'completed'),
      step('summaries', 'started'),
      ...itemEvents('summaries', 10_000, outcome),
      step('review', 'started'),
    ]),
    ...stamp('d-1/review', [
      { ...step('draft', 'started'), step: 'review' },
      { ...step('draft', 'completed'), step: 'review' },
    ]),
    ...stamp('d-1', [
      {
        type: 'flow.paused',
        waiting: ['review'],
        waitingFor: [{ step: 'review', nodeId: 'review', kind: 'flow', runId: 'd-1/review', path }],
      },
    ]),
  ];
}

describe.skipIf(optedOut)('the run view of a flow that composes, in Chromium', () => {
  let browser: Browser | undefined;
  let opened: Page | undefined;
  const watch = { requests: [] as string[], dialogs: [] as string[], problems: [] as string[] };
  let url = '';
  const page = (): Page => {
    if (!hasChromium) throw missingChromium();
    if (opened === undefined) throw new Error('The run view did not open in Chromium');
    return opened;
  };

  beforeAll(async () => {
    if (!hasChromium) return;
    await mkdir(ARTIFACTS, { recursive: true });
    const view = toFlowView(digestFlow(), { events: digestEvents() });
    url = pathToFileURL(await writeRunView(view, `${ARTIFACTS}compose-view.html`)).href;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
    opened = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    watchPage(opened, watch);
    await opened.goto(url);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
  });

  it("draws the map step as a group with its items' counts", async () => {
    const counts = page().locator('[data-node="summaries"] .map-counts');
    await expect.poll(() => counts.getAttribute('data-total')).toBe('10000');
    expect(await counts.getAttribute('data-failed')).toBe('4');
    expect(await counts.getAttribute('data-running')).toBe('5');
    expect(await page().locator('[data-node="summaries"] .stack').count()).toBe(2);
    expect(await counts.locator('text').textContent()).toBe('9991/10000 done · 4 failed · 5 running');
  });

  it('expands the map step to its items: a hundred listed, failed and running first, each linking its child run', async () => {
    await page().locator('[data-node="summaries"]').click();
    const summary = page().locator('#panel .map-items summary');
    await expect.poll(() => summary.textContent()).toBe('Show 100 of 10000 items (failed and running first)');
    const items = page().locator('#panel .map-item');
    expect(await items.count()).toBe(100);
    expect(await items.first().isVisible()).toBe(false);
    await summary.click();
    expect(await items.first().isVisible()).toBe(true);
    const failed = page().locator('#panel .map-item[data-status="failed"]');
    expect(await failed.count()).toBe(4);
    expect(await failed.first().getAttribute('data-item-id')).toBe('doc-3');
    expect(await failed.first().locator('.item-error').textContent()).toBe('map_item_failed: doc 3 is empty');
    expect(await failed.first().locator('a.child-run').getAttribute('href')).toBe(
      '#run=d-1%2Fsummaries%2Fdoc-3',
    );
    expect(await page().locator('#panel .more-items').textContent()).toBe('… 9900 more');
    // The page never holds all ten thousand items.
    expect(await page().locator('[data-item-id]').count()).toBe(100);
  });

  it('draws the subflow as a box of its steps, paused where it waits, its child run linked', async () => {
    const box = page().locator('[data-node="review"]');
    expect(await box.getAttribute('data-status')).toBe('paused');
    const steps = box.locator('.subflow [data-sub-step]');
    expect(
      await steps.evaluateAll((list) =>
        list.map((e) => `${e.getAttribute('data-sub-step')}:${e.getAttribute('data-status')}`),
      ),
    ).toEqual(['draft:completed', 'approve:paused', 'publish:waiting']);
    await box.click();
    await expect
      .poll(() => page().locator('#panel .subflow-part h3').textContent())
      .toBe('Child flow review');
    expect(await page().locator('#panel .subflow-part dd').first().textContent()).toBe('review › approve');
    const link = page().locator('#panel .subflow-part a.child-run');
    expect(await link.getAttribute('href')).toBe('#run=d-1%2Freview');
    await link.click();
    expect(await page().evaluate('location.hash')).toBe('#run=d-1%2Freview');
  });

  it('runs no script error and asks for nothing beyond its own file', () => {
    expect(watch.problems).toEqual([]);
    expect(watch.dialogs).toEqual([]);
    expect(watch.requests.filter((r) => r !== url)).toEqual([]);
  });
});
