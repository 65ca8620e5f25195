import { mkdir, stat } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, Crew, type StatecrewEvent, Task } from '../../src/index.js';
import { createScriptedModel } from '../../src/testing.js';
import { type RunView, toCrewView, writeRunView } from '../../src/view/index.js';
import { taskLine } from '../helpers.js';
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

if (optedOut) warnSkipped("the big run view's browser test");

const HOSTILE_ERROR = 'source gone <img src=x onerror="window.__xss=5"><script>window.__xss=6</script>';
const FAILING = new Set(['Task: Check item 7', 'Task: Check item 150']);

/** `plan` → `count` checks → `report` (a graph crew); checks 7 and 150 fail, so `report` is blocked. */
async function bigRun(count: number): Promise<RunView> {
  const llm = createScriptedModel((request) =>
    FAILING.has(taskLine(request.prompt)) ? new Error(HOSTILE_ERROR) : 'checked <b>ok</b>',
  );
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
  return toCrewView(crew, { output: await run.result, events });
}

interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}
const inside = (inner: Rect, outer: Rect) =>
  inner.x >= outer.x - 1 &&
  inner.y >= outer.y - 1 &&
  inner.x + inner.width <= outer.x + outer.width + 1 &&
  inner.y + inner.height <= outer.y + outer.height + 1;
const intersect = (a: Rect, b: Rect) =>
  a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

describe.skipIf(optedOut)('the run view of a 200-task run in Chromium at 1,400 × 900', () => {
  let browser: Browser | undefined;
  let opened: Page | undefined;
  let url: string;
  const requests: string[] = [];
  const dialogs: string[] = [];
  const problems: string[] = [];

  const page = (): Page => {
    if (!hasChromium) throw missingChromium();
    if (opened === undefined) throw new Error('The big run view did not open in Chromium');
    return opened;
  };
  const rectOf = async (selector: string): Promise<Rect> => {
    const rect = await page().locator(selector).first().boundingBox();
    if (rect === null) throw new Error(`${selector} is not shown`);
    return rect;
  };
  const graphBox = () => rectOf('#graph-viewport');
  const nodeRect = (id: string) => rectOf(`svg.graph [data-node="${id}"] rect.box`);
  const scale = async () => Number(await page().locator('svg.graph').getAttribute('data-scale'));
  const fitGraph = async () => {
    await page().locator('[data-zoom="fit"]').click();
    await page().locator('#graph-search').fill('');
  };

  beforeAll(async () => {
    if (!hasChromium) return;
    const view = await bigRun(200);
    await mkdir(ARTIFACTS, { recursive: true });
    url = pathToFileURL(await writeRunView(view, `${ARTIFACTS}big-view.html`)).href;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    opened = page;
    watchPage(page, { requests, dialogs, problems });
    await page.goto(url);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
  });

  it('opens with the whole graph inside its box: every one of its 202 nodes', async () => {
    const box = await graphBox();
    expect(box.width).toBeGreaterThan(800);
    const rects = await page()
      .locator('svg.graph [data-node] rect.box')
      .evaluateAll((els) =>
        els.map((e) => {
          const r = e.getBoundingClientRect();
          return { x: r.x, y: r.y, width: r.width, height: r.height };
        }),
      );
    expect(rects).toHaveLength(202);
    expect(rects.filter((r) => !inside(r, box))).toEqual([]);
    // The box itself is on the first screen.
    expect(box.y + box.height).toBeLessThanOrEqual(900);
    await page().screenshot({ path: `${ARTIFACTS}big-view.png` });
    expect((await stat(`${ARTIFACTS}big-view.png`)).size).toBeGreaterThan(10_000);
  });

  it('zooms in and out with the buttons, the keys and Ctrl + wheel, and fits again', async () => {
    await fitGraph();
    const fitted = (await nodeRect('check-0')).width;
    const level = page().locator('#zoom-level');
    const fittedLevel = await level.textContent();
    await page().locator('[data-zoom="in"]').click();
    expect((await nodeRect('check-0')).width).toBeCloseTo(fitted * 1.25, 0);
    expect(await level.textContent()).not.toBe(fittedLevel);
    await page().locator('[data-zoom="out"]').click();
    await page().locator('[data-zoom="out"]').click();
    expect((await nodeRect('check-0')).width).toBeCloseTo(fitted * 0.8, 0);
    await page().locator('[data-zoom="fit"]').click();
    expect((await nodeRect('check-0')).width).toBeCloseTo(fitted, 1);
    expect(await level.textContent()).toBe(fittedLevel);
    await page().locator('body').press('+');
    expect((await nodeRect('check-0')).width).toBeCloseTo(fitted * 1.25, 0);
    await page().locator('body').press('-');
    await page().locator('body').press('-');
    expect((await nodeRect('check-0')).width).toBeCloseTo(fitted * 0.8, 0);
    await page().locator('body').press('0');
    expect((await nodeRect('check-0')).width).toBeCloseTo(fitted, 1);
    const box = await graphBox();
    await page().mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page().keyboard.down('Control');
    await page().mouse.wheel(0, -200);
    await page().keyboard.up('Control');
    await expect.poll(async () => (await nodeRect('check-0')).width).toBeGreaterThan(fitted * 1.2);
  });

  it('pans by dragging and with the arrow keys when the graph has focus', async () => {
    await fitGraph();
    await page().locator('[data-zoom="in"]').click();
    await page().locator('[data-zoom="in"]').click();
    const before = await nodeRect('check-100');
    const box = await graphBox();
    await page().mouse.move(box.x + 20, box.y + 20);
    await page().mouse.down();
    await page().mouse.move(box.x + 120, box.y + 70, { steps: 5 });
    await page().mouse.up();
    const dragged = await nodeRect('check-100');
    expect(dragged.x - before.x).toBeCloseTo(100, 0);
    expect(dragged.y - before.y).toBeCloseTo(50, 0);
    await page().locator('#graph-viewport').focus();
    await page().keyboard.press('ArrowRight');
    expect((await nodeRect('check-100')).x).toBeLessThan(dragged.x - 30);
  });

  it('finds nodes by name and by agent, and Enter brings the next match into view', async () => {
    await fitGraph();
    for (let i = 0; i < 4; i += 1) await page().locator('[data-zoom="in"]').click();
    const wanted = 'svg.graph [data-node="check-187"]';
    expect(inside(await nodeRect('check-187'), await graphBox())).toBe(false);
    const search = page().locator('#graph-search');
    await search.fill('CHECK-187');
    await expect.poll(() => page().locator('#search-count').textContent()).toBe('1 match');
    await search.press('Enter');
    expect(await page().locator('#search-count').textContent()).toBe('1 of 1');
    expect(await page().locator(wanted).getAttribute('class')).toContain('current-match');
    expect(inside(await nodeRect('check-187'), await graphBox())).toBe(true);
    expect(await scale()).toBeGreaterThanOrEqual(1);
    // By agent: the four checks the auditor ran, each in turn.
    await search.fill('auditor');
    await expect.poll(() => page().locator('#search-count').textContent()).toBe('4 matches');
    expect(await page().locator('svg.graph .node.match').count()).toBe(4);
    await search.press('Enter');
    await search.press('Enter');
    expect(await page().locator('#search-count').textContent()).toBe('2 of 4');
    expect(inside(await nodeRect('check-50'), await graphBox())).toBe(true);
    await search.fill('no such node');
    await expect.poll(() => page().locator('#search-count').textContent()).toBe('No match');
  });

  it('lists the failed and blocked nodes with their errors as text, and jumps to one with its details', async () => {
    await fitGraph();
    const entries = page().locator('#failures button[data-failure]');
    expect(await entries.evaluateAll((els) => els.map((e) => e.getAttribute('data-failure')))).toEqual([
      'check-7',
      'check-150',
      'report',
    ]);
    expect(await page().locator('#failures-title').textContent()).toBe('Failed and blocked (3)');
    expect(await entries.nth(0).locator('.failure-reason').textContent()).toContain(HOSTILE_ERROR);
    expect(await entries.nth(2).locator('.failure-reason').textContent()).toBe(
      'blocked by check-7 (failed), check-150 (failed)',
    );
    await entries.nth(1).click();
    await expect.poll(() => page().locator('#panel h2').textContent()).toContain('check-150');
    expect(await page().locator('#panel pre.error').textContent()).toContain(HOSTILE_ERROR);
    expect(await page().locator('svg.graph [data-node="check-150"]').getAttribute('class')).toContain(
      'selected',
    );
    expect(inside(await nodeRect('check-150'), await graphBox())).toBe(true);
    expect(await scale()).toBeGreaterThanOrEqual(1);
    expect(await page().locator('img, #panel script, #failures script').count()).toBe(0);
  });

  it('keeps the details, the failures and the timeline each in its own area, scrolled or not', async () => {
    await page().locator('#failures button[data-failure="check-7"]').click();
    for (const scrollY of [0, 600, 1_200, 100_000]) {
      await page().evaluate(`window.scrollTo(0, ${scrollY})`);
      const [panel, failures, timeline, graphCard] = await Promise.all(
        ['#panel', '#failures', '.timeline-card', '.graph-card'].map((s) =>
          page()
            .locator(s)
            .evaluate((e) => {
              const r = e.getBoundingClientRect();
              return { x: r.x, y: r.y, width: r.width, height: r.height };
            }),
        ),
      );
      for (const side of [panel, failures] as Rect[]) {
        expect(intersect(side, timeline as Rect)).toBe(false);
        expect(intersect(side, graphCard as Rect)).toBe(false);
      }
      expect(intersect(panel as Rect, failures as Rect)).toBe(false);
    }
    await page().evaluate('window.scrollTo(0, 0)');
  });

  it('reaches the controls and then a node by Tab, with a visible focus ring, and opens it with Enter', async () => {
    await fitGraph();
    await page().locator('#graph-search').focus();
    const reached: string[] = [];
    for (let i = 0; i < 12 && !reached.at(-1)?.startsWith('node:'); i += 1) {
      await page().keyboard.press('Tab');
      reached.push(
        await page().evaluate(`(() => {
          const e = document.activeElement;
          if (e.hasAttribute('data-node')) return 'node:' + e.getAttribute('data-node');
          return e.id || e.getAttribute('data-zoom') || e.tagName;
        })()`),
      );
    }
    expect(reached).toEqual(['out', 'in', 'fit', 'graph-viewport', 'node:plan']);
    const ring = await page().evaluate(`(() => {
      const box = document.activeElement.querySelector('rect.box');
      const style = getComputedStyle(box);
      return { stroke: style.stroke, width: style.strokeWidth };
    })()`);
    expect(ring).toEqual({ stroke: 'rgb(26, 115, 232)', width: '5px' });
    await page().keyboard.press('Enter');
    await expect.poll(() => page().locator('#panel h2').textContent()).toContain('plan');
    await page().keyboard.press('Tab');
    await page().keyboard.press(' ');
    await expect.poll(() => page().locator('#panel h2').textContent()).toContain('check-0');
    // Tab on through the grid keeps the focused node in view, even zoomed in.
    for (let i = 0; i < 4; i += 1) await page().locator('[data-zoom="in"]').click();
    await page().locator('svg.graph [data-node="check-0"]').focus();
    for (let i = 0; i < 30; i += 1) await page().keyboard.press('Tab');
    expect(await page().evaluate('document.activeElement.getAttribute("data-node")')).toBe('check-30');
    expect(inside(await nodeRect('check-30'), await graphBox())).toBe(true);
  });

  it('redraws the failures from new data when the page dispatches statecrew:refresh', async () => {
    await page().evaluate(`(() => {
      const block = document.getElementById('run-data');
      const data = JSON.parse(block.textContent);
      data.nodes.find((n) => n.id === 'check-150').status = 'completed';
      block.textContent = JSON.stringify(data);
      document.dispatchEvent(new Event('statecrew:refresh'));
    })()`);
    await expect.poll(() => page().locator('#failures button[data-failure]').count()).toBe(2);
    expect(await page().locator('#failures-title').textContent()).toBe('Failed and blocked (2)');
  });

  it('runs no payload and fetches nothing: no dialog, no request beyond the page, no error', async () => {
    await page().screenshot({ path: `${ARTIFACTS}big-view-end.png` });
    expect(dialogs).toEqual([]);
    expect(requests.filter((r) => r !== url)).toEqual([]);
    expect(problems).toEqual([]);
    expect(await page().evaluate('typeof window.__xss')).toBe('undefined');
  });

  describe('of 500 tasks', () => {
    let big: Page | undefined;
    const shown = (): Page => {
      page();
      if (big === undefined) throw new Error('The 500-task view did not open in Chromium');
      return big;
    };

    beforeAll(async () => {
      if (browser === undefined) return;
      const file = await writeRunView(await bigRun(500), `${ARTIFACTS}big-view-500.html`);
      big = await browser.newPage({ viewport: { width: 1400, height: 900 } });
      big.on('pageerror', (error) => problems.push(error.message));
      await big.goto(pathToFileURL(file).href);
    }, 120_000);

    // How long these take to paint is measured by bench/view-paint.ts, not here.
    it('draws every node, and zooms, searches and jumps to a failure', async () => {
      expect(await shown().locator('svg.graph [data-node]').count()).toBe(502);
      const scaleOf = async () => Number(await shown().locator('svg.graph').getAttribute('data-scale'));
      const fitted = await scaleOf();
      await shown().locator('[data-zoom="in"]').click();
      await expect.poll(scaleOf).toBeCloseTo(fitted * 1.25, 5);
      await shown().locator('#graph-search').fill('check-49');
      await expect.poll(() => shown().locator('#search-count').textContent()).toBe('11 matches');
      expect(await shown().locator('svg.graph .node.match').count()).toBe(11);
      await shown().locator('[data-failure="check-150"]').click();
      await expect.poll(() => shown().locator('#panel h2').textContent()).toContain('check-150');
      expect(await shown().locator('svg.graph [data-node="check-150"]').getAttribute('class')).toContain(
        'selected',
      );
      await shown().screenshot({ path: `${ARTIFACTS}big-view-500.png` });
    });
  });
});
