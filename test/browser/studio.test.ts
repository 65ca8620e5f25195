import { mkdir } from 'node:fs/promises';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, Crew, createFlow, Task } from '../../src/index.js';
import { createServer, type Listening, listen, type StatecrewServer } from '../../src/serve/index.js';
import { createScriptedModel } from '../../src/testing.js';
import { orderFlow, refundCrew, TOKEN, tempStore } from '../serve/serve-helpers.js';
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

if (optedOut) warnSkipped("the studio's browser test");

/** How long a poll waits for the page: generous, for a loaded 2-core machine. */
const WAIT = 30_000;

const HOSTILE = [
  'Three findings.',
  '<script>window.__xss=1</script>',
  '<img src=x onerror="window.__xss=2">',
  '</script><!-- the end -->',
].join('\n');
const HOSTILE_PROMPT = 'Publish it? <img src=x onerror="window.__xss=3">';

/** A gate the test opens: the flow's first step waits on it, so the test sees it running. */
function gate() {
  let open: () => void = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open: () => open() };
}

/** A flow that drafts (held by `held` until the test opens it), asks a human, then publishes or discards. */
function reviewFlow(held: Promise<void>) {
  return createFlow({ name: 'review', initialState: { title: '' } })
    .start('draft', async ({ state }) => {
      await held;
      return `draft of ${state.title} ${HOSTILE}`;
    })
    .human('approve', 'draft', { routes: ['yes', 'no'], prompt: HOSTILE_PROMPT })
    .listen('publish', 'yes', ({ payload }) => `published: ${JSON.stringify(payload)}`)
    .listen('discard', 'no', () => 'discarded');
}

/** A crew of one task whose model answers with hostile HTML. */
function hostileCrew() {
  const llm = createScriptedModel(() => HOSTILE);
  const analyst = new Agent({ role: 'Analyst <b>x</b>', goal: 'find', backstory: 'sharp', llm });
  const task = new Task({ name: 'research', description: 'Research {topic}', agent: analyst });
  return new Crew({ name: 'market', tasks: [task] });
}

/** A parallel crew of `n` tasks: a wide run to fit. */
function wideCrew(n: number) {
  const llm = createScriptedModel((request) => `done: ${request.prompt.length}`);
  const agent = new Agent({ role: 'Worker', goal: 'work', backstory: 'busy', llm });
  const tasks = Array.from(
    { length: n },
    (_, i) => new Task({ name: `t${i}`, description: `Task number ${i}`, agent }),
  );
  return new Crew({ name: 'wide', tasks, process: 'parallel' });
}

describe.skipIf(optedOut)('the studio in Chromium', { timeout: 120_000 }, () => {
  let browser: Browser | undefined;
  let opened: Page | undefined;
  let server: StatecrewServer;
  let listening: Listening;
  let temp: ReturnType<typeof tempStore>;
  const draftGate = gate();
  const refunded: number[] = [];
  const problems: string[] = [];
  const dialogs: string[] = [];
  const requests: string[] = [];
  /** The requests that went anywhere but the studio's own server. */
  const outside = () => requests.filter((url) => !url.startsWith(listening.url));

  const page = (): Page => {
    if (!hasChromium) throw missingChromium();
    if (opened === undefined) throw new Error('The studio did not open in Chromium');
    return opened;
  };
  const node = (id: string) => page().locator(`#graph-viewport svg.graph [data-node="${id}"]`);
  const statusOf = (id: string) => node(id).getAttribute('data-status');

  beforeAll(async () => {
    if (!hasChromium) return;
    temp = tempStore();
    server = createServer({
      flows: [reviewFlow(draftGate.opened), orderFlow()],
      crews: [hostileCrew(), wideCrew(500), refundCrew(refunded)],
      store: temp.store,
      token: TOKEN,
      runner: false,
    });
    listening = await listen(server, { port: 0 });
    await mkdir(ARTIFACTS, { recursive: true });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
    const tab = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    opened = tab;
    // A 401 before the token is given is the studio asking for it; any other error is a problem.
    watchPage(tab, { requests, dialogs, problems }, (text) => text.includes('401'));
    await tab.goto(`${listening.url}/`);
  }, 60_000);

  afterAll(async () => {
    draftGate.open();
    await browser?.close();
    await server?.close();
    await listening?.close();
    await temp?.dispose();
  });

  it('asks for the token the server needs, then lists the definitions', async () => {
    await expect.poll(() => page().locator('#token-card').isVisible(), { timeout: WAIT }).toBe(true);
    await page().locator('#token-input').fill(TOKEN);
    await page().locator('#token-input').press('Enter');
    await expect
      .poll(() => page().locator('#start-definition option').allTextContents())
      .toEqual([
        'market · sequential crew',
        'wide · parallel crew',
        'refunds · sequential crew',
        'review · flow',
        'order · flow',
      ]);
    expect(await page().locator('#token-card').isVisible()).toBe(false);
  });

  it('starts a flow from the form and watches its nodes change live', async () => {
    await page().locator('#start-definition').selectOption('review');
    await page().locator('#start-inputs textarea[name="inputs-json"]').fill('{"title": "otters"}');
    await page().locator('#start-button').click();
    await expect.poll(() => page().evaluate('location.hash'), { timeout: WAIT }).toMatch(/^#run=/);
    await expect.poll(() => statusOf('draft'), { timeout: WAIT }).toBe('running');
    expect(await statusOf('approve')).toBe('waiting');
    draftGate.open();
    await expect.poll(() => statusOf('draft'), { timeout: WAIT }).toBe('completed');
    await expect.poll(() => statusOf('approve'), { timeout: WAIT }).toBe('paused');
    await expect.poll(() => page().locator('#waits').isVisible(), { timeout: WAIT }).toBe(true);
    expect(await page().locator('#wait-forms .prompt').textContent()).toBe(HOSTILE_PROMPT);
    await page().screenshot({ path: `${ARTIFACTS}studio-paused.png` });
  });

  it('answers the human step through its form, and the run completes', async () => {
    await page().locator('#wait-forms textarea[name="feedback"]').fill('ship it');
    await page().locator('#wait-forms button[value="yes"]').click();
    await expect.poll(() => statusOf('publish'), { timeout: WAIT }).toBe('completed');
    expect(await statusOf('discard')).toBe('not-run');
    await expect
      .poll(() => page().locator('#run-header .badge').textContent(), { timeout: WAIT })
      .toBe('completed');
    await expect.poll(() => page().locator('#waits').isVisible(), { timeout: WAIT }).toBe(false);
    const current = page().locator('.run-item[aria-current="true"] [data-status]');
    await expect.poll(() => current.textContent(), { timeout: WAIT }).toBe('completed');
    await node('publish').click();
    await expect
      .poll(() => page().locator('#panel').textContent())
      .toContain('published: {"route":"yes","feedback":"ship it"}');
  });

  it('shows hostile model output as text and runs none of it', async () => {
    await page().locator('#start-definition').selectOption('market');
    await page().locator('#start-inputs input[name="topic"]').fill('<img src=x onerror="window.__xss=4">');
    await page().locator('#start-button').click();
    await expect.poll(() => statusOf('research'), { timeout: WAIT }).toBe('completed');
    await node('research').click();
    await expect
      .poll(() => page().locator('#panel').textContent())
      .toContain('<img src=x onerror="window.__xss=2">');
    expect(await page().locator('#run-list').textContent()).toContain('market');
    expect(await page().evaluate('typeof window.__xss')).toBe('undefined');
    expect(await page().locator('#graph-viewport img, #panel img, #run-header img').count()).toBe(0);
    expect(dialogs).toEqual([]);
    expect(outside()).toEqual([]);
  });

  /** Starts a run over HTTP and opens it in the studio. */
  const openStarted = async (definition: string, inputs: Record<string, unknown>) => {
    const tab = page();
    const response = await fetch(`${listening.url}/runs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ definition, inputs }),
    });
    const { id } = (await response.json()) as { id: string };
    await tab.evaluate(`location.hash = '#run=' + encodeURIComponent(${JSON.stringify(id)})`);
    return id;
  };

  it("refuses a crew's tool call through its approval form, and the crew goes on without it", async () => {
    await openStarted('refunds', {});
    await expect.poll(() => statusOf('refund'), { timeout: WAIT }).toBe('paused');
    const form = page().locator('#wait-forms .wait-form');
    await expect
      .poll(() => form.locator('legend').textContent(), { timeout: WAIT })
      .toBe('Tool call: refund by Clerk');
    await form.locator('input[value="no"]').check();
    await form.locator('textarea').fill('not without a receipt');
    await form.locator('button[type="submit"]').click();
    await expect.poll(() => statusOf('refund'), { timeout: WAIT }).toBe('completed');
    expect(refunded).toEqual([]);
    await node('refund').click();
    await expect
      .poll(() => page().locator('#panel').textContent(), { timeout: WAIT })
      .toContain('not without a receipt');
  });

  it("signals a flow's wait step through its form with a JSON payload", async () => {
    const id = await openStarted('order', { item: 'kayak' });
    await expect.poll(() => statusOf('payment'), { timeout: WAIT }).toBe('paused');
    const form = page().locator('#wait-forms .wait-form');
    const payload = form.locator('textarea[name="payload"]');
    await payload.fill('not json');
    // The run's detail read again (the run opened anew) for the same pause keeps what was typed.
    const reread = page().waitForResponse((r) => r.url().endsWith(`/runs/${encodeURIComponent(id)}`));
    await page().evaluate("window.dispatchEvent(new HashChangeEvent('hashchange'))");
    await reread;
    await expect.poll(() => page().locator('#waits').isVisible(), { timeout: WAIT }).toBe(true);
    expect(await payload.inputValue()).toBe('not json');
    await form.locator('button[type="submit"]').click();
    await expect
      .poll(() => form.locator('.form-error').textContent(), { timeout: WAIT })
      .toContain('invalid_json');
    await form.locator('textarea[name="payload"]').fill('{"paid": 42}');
    await form.locator('button[type="submit"]').click();
    await expect.poll(() => statusOf('ship'), { timeout: WAIT }).toBe('completed');
    await node('ship').click();
    await expect
      .poll(() => page().locator('#panel').textContent(), { timeout: WAIT })
      .toContain('shipped after {"paid":42}');
  });

  it('is reachable by keyboard: Tab from the status filter reaches a run, Enter opens it', async () => {
    await page().locator('#runs-status').focus();
    await page().keyboard.press('Tab');
    const focused = await page().evaluate(
      "document.activeElement && document.activeElement.getAttribute('data-run-id')",
    );
    expect(typeof focused).toBe('string');
    await page().evaluate("location.hash = ''");
    await page().keyboard.press('Enter');
    await expect
      .poll(() => page().evaluate('location.hash'), { timeout: WAIT })
      .toBe(`#run=${encodeURIComponent(String(focused))}`);
    await expect.poll(() => page().locator('#run-area').isVisible(), { timeout: WAIT }).toBe(true);
  });

  it('opens a run of 500 tasks fitted to its box, with zoom and search', async () => {
    const tab = page();
    const response = await fetch(`${listening.url}/runs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ definition: 'wide', inputs: {} }),
    });
    const { id } = (await response.json()) as { id: string };
    await tab.evaluate(`location.hash = '#run=' + encodeURIComponent(${JSON.stringify(id)})`);
    const nodes = page().locator('#graph-viewport svg.graph [data-node]');
    await expect.poll(() => nodes.count(), { timeout: WAIT }).toBeGreaterThanOrEqual(500);
    await expect
      .poll(() => page().locator('#run-header .badge').textContent(), { timeout: WAIT })
      .toBe('completed');
    const box = await page().locator('#graph-viewport').boundingBox();
    expect(box?.width).toBeLessThanOrEqual(1400);
    expect((box?.y ?? 900) + (box?.height ?? 0)).toBeLessThanOrEqual(900);
    const scale = Number(await page().locator('#graph-viewport svg.graph').getAttribute('data-scale'));
    expect(scale).toBeLessThan(1);
    await page().locator('#graph-search').fill('t499');
    await expect.poll(() => page().locator('#search-count').textContent(), { timeout: WAIT }).toContain('1');
    await page().screenshot({ path: `${ARTIFACTS}studio-wide.png` });
  });

  it('had no script errors and no request beyond its server', () => {
    expect(problems).toEqual([]);
    expect(outside()).toEqual([]);
  });
});
