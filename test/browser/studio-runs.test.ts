import { mkdir } from 'node:fs/promises';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent, Crew, createFlow, defineTool, or, Task, type ToolCall } from '../../src/index.js';
import { createServer, type Listening, listen, type StatecrewServer } from '../../src/serve/index.js';
import { createScriptedModel } from '../../src/testing.js';
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

if (optedOut) warnSkipped("the studio's browser test of stored runs");

/** How long a poll waits for the page: generous, for a loaded 2-core machine. */
const WAIT = 30_000;
const ISO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** A flow this server does not serve: it orders, waits for a payment, then ships. */
function sagaFlow() {
  return createFlow({ name: 'order-saga', initialState: { item: 'kayak' } })
    .start('reserve', ({ state }) => `reserved ${state.item}`)
    .wait('payment', 'reserve', { event: 'payment.received' })
    .listen('ship', 'payment', () => 'shipped');
}

/** A served flow whose router chooses a branch: a large amount asks a human, a small one is noted. */
function triageFlow() {
  return createFlow({ name: 'triage', initialState: { amount: 0 } })
    .start('check', ({ state }) => `asks for ${state.amount}`)
    .router('size', 'check', ({ state }) => (state.amount > 100 ? 'large' : 'small'), {
      routes: ['small', 'large'],
    })
    .human('approval', 'large', { routes: ['approved', 'rejected'], prompt: 'Pay it?' })
    .listen('pay', or('small', 'approved'), () => 'paid')
    .listen('note', 'small', () => 'noted');
}

/** A served crew: a clerk looks the case up, then refunds through a tool that waits for approval. */
function refundsCrew() {
  const refund = defineTool({
    name: 'refund',
    description: 'Refund an amount',
    input: z.object({ amount: z.number() }),
    needsApproval: true,
    execute: ({ amount }) => `refunded ${amount}`,
  });
  const llm = createScriptedModel((request) => {
    if (request.prompt.includes('look it up')) return 'case found';
    const results = request.messages.flatMap((m) => (m.role === 'tool' ? [m.content] : []));
    if (results.length > 0) return `done: ${results.join(' | ')}`;
    const toolCalls: ToolCall[] = [{ id: 't0', name: 'refund', args: { amount: 42 } }];
    return { text: '', toolCalls };
  });
  const clerk = new Agent({ role: 'Clerk', goal: 'refund', backstory: 'fair', llm, tools: [refund] });
  const look = new Task({ name: 'look', description: 'look it up', agent: clerk });
  const pay = new Task({ name: 'refund', description: 'refund 42', agent: clerk });
  return new Crew({ name: 'refunds', tasks: [look, pay] });
}

describe.skipIf(optedOut)('the studio on stored runs, in Chromium', { timeout: 180_000 }, () => {
  let browser: Browser | undefined;
  let server: StatecrewServer;
  let listening: Listening;
  let temp: ReturnType<typeof tempStore>;
  const problems: string[] = [];
  const ids = { saga: '', resumed: '', resumedFrom: 0, settled: '', triage: '' };

  const post = async (path: string, body: unknown) => {
    const response = await fetch(`${listening.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return (await response.json()) as Record<string, unknown>;
  };
  const detail = async (id: string) => {
    const response = await fetch(`${listening.url}/runs/${id}`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    return (await response.json()) as { status: string; pending: { callId: string }[] };
  };
  /** A tab of `width` px on the studio, its token given. */
  const studio = async (width: number): Promise<Page> => {
    if (browser === undefined) throw missingChromium();
    const tab = await browser.newPage({ viewport: { width, height: 900 } });
    watchPage(tab, { requests: [], dialogs: [], problems }, (text) => text.includes('401'));
    await tab.goto(`${listening.url}/`);
    await tab.locator('#token-input').fill(TOKEN);
    await tab.locator('#token-input').press('Enter');
    await expect.poll(() => tab.locator('#start-definition option').count(), { timeout: WAIT }).toBe(2);
    return tab;
  };
  const open = async (tab: Page, id: string) => {
    await tab.evaluate(`location.hash = '#run=' + encodeURIComponent(${JSON.stringify(id)})`);
    await expect.poll(() => tab.locator('#graph-viewport svg.graph').count(), { timeout: WAIT }).toBe(1);
  };
  const statusOf = (tab: Page, id: string) =>
    tab.locator(`#graph-viewport svg.graph [data-node="${id}"]`).getAttribute('data-status');

  beforeAll(async () => {
    if (!hasChromium) return;
    temp = tempStore();
    // Runs kept before this server started: one of a flow it does not serve (with its events), a
    // crew it serves that paused with no event kept, and a flow it serves that completed with none.
    const saga = await sagaFlow().kickoff({ store: temp.store, events: 'store' });
    ids.saga = saga.id;
    ids.resumedFrom = Date.now();
    const paused = await refundsCrew().kickoff({ store: temp.store });
    ids.resumed = String(paused.metadata.executionId);
    const settled = await triageFlow().kickoff({ store: temp.store, inputs: { amount: 5 } });
    ids.settled = settled.id;
    server = createServer({
      crews: [refundsCrew()],
      flows: [triageFlow()],
      store: temp.store,
      token: TOKEN,
      runner: false,
    });
    listening = await listen(server, { port: 0 });
    await mkdir(ARTIFACTS, { recursive: true });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await listening?.close();
    await temp?.dispose();
  });

  it('says a missing token once, in the card that asks for it', async () => {
    if (browser === undefined) throw missingChromium();
    const tab = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    watchPage(tab, { requests: [], dialogs: [], problems }, (text) => text.includes('401'));
    const answered = tab.waitForResponse((r) => r.url().includes('/runs?') && r.status() === 401);
    const listed = tab.waitForResponse((r) => r.url().endsWith('/definitions') && r.status() === 401);
    await tab.goto(`${listening.url}/`);
    await Promise.all([answered, listed]);
    await expect.poll(() => tab.locator('#token-card').isVisible(), { timeout: WAIT }).toBe(true);
    const shown = tab.locator('.form-error:visible');
    await expect.poll(() => shown.count(), { timeout: WAIT }).toBe(1);
    expect(await tab.locator('#token-error').isVisible()).toBe(true);
    await tab.close();
  });

  it('opens a listed run of a definition it does not serve, drawn from the store, with no answer offered', async () => {
    const tab = await studio(1400);
    const item = tab.locator(`.run-item[data-run-id="${ids.saga}"]`);
    await expect.poll(() => item.count(), { timeout: WAIT }).toBe(1);
    await item.click();
    await expect.poll(() => statusOf(tab, 'reserve'), { timeout: WAIT }).toBe('completed');
    await expect.poll(() => statusOf(tab, 'payment'), { timeout: WAIT }).toBe('paused');
    await expect.poll(() => tab.locator('#run-note').isVisible(), { timeout: WAIT }).toBe(true);
    expect(await tab.locator('#run-note').textContent()).toContain('does not serve "order-saga"');
    expect(await tab.locator('#run-error').isVisible()).toBe(false);
    expect(await tab.locator('#waits').isVisible()).toBe(false);
    expect(await tab.locator('#run-resume').isVisible()).toBe(false);
    await tab.screenshot({ path: `${ARTIFACTS}studio-not-served.png` });
    await expect
      .poll(() => tab.locator('#run-live').textContent(), { timeout: WAIT })
      .toBe('paused · waiting for an answer');
    await tab.close();
  });

  it('keeps the bars and the start time of the part of a resumed run it kept no events for', async () => {
    const { pending } = await detail(ids.resumed);
    const callId = pending[0]?.callId as string;
    const resumedAt = Date.now();
    await post(`/runs/${ids.resumed}/resume`, { approvals: { [callId]: { approve: true } } });
    await expect.poll(async () => (await detail(ids.resumed)).status, { timeout: WAIT }).toBe('completed');
    const tab = await studio(1400);
    await open(tab, ids.resumed);
    await expect.poll(() => statusOf(tab, 'refund'), { timeout: WAIT }).toBe('completed');
    expect(await statusOf(tab, 'look')).toBe('completed');
    const timeline = tab.locator('#run-area .timeline-card');
    expect(await timeline.locator('[data-timeline-node="look"]').count()).toBe(1);
    expect(await timeline.locator('[data-timeline-node="refund"]').count()).toBe(1);
    const started = (await tab.locator('#run-header').textContent()) ?? '';
    const shown = /\d{4}-\d\d-\d\dT[\d:.]+Z/.exec(started)?.[0];
    // The refund task's bar starts when the task first did, before the resume, as the run does.
    const data = JSON.parse((await tab.locator('#run-data').textContent()) ?? '{}') as {
      timeline: { node: string; startMs: number }[];
      totals: { startedAt: number };
    };
    const refundBar = data.timeline.find((entry) => entry.node === 'refund');
    expect(data.totals.startedAt + (refundBar?.startMs ?? Number.NaN)).toBeLessThan(resumedAt);
    // The run started when it was first kicked off, before the resume.
    expect(Date.parse(String(shown))).toBeGreaterThanOrEqual(ids.resumedFrom - 1000);
    expect(Date.parse(String(shown))).toBeLessThan(resumedAt);
    await tab.close();
  });

  it('shows a settled run it follows again as settled, not as a stream to reconnect', async () => {
    const tab = await studio(1400);
    const ended = tab.waitForResponse((r) => r.url().includes(`/runs/${ids.settled}/events`));
    await open(tab, ids.settled);
    expect((await ended).status()).toBe(204);
    await expect
      .poll(() => tab.locator('#run-live').textContent(), { timeout: WAIT })
      .toBe('ended · completed');
    expect(await tab.locator('#run-error').isVisible()).toBe(false);
    await tab.close();
  });

  it('draws the branch a router did not take as not run while the run waits, and a legend that tells them apart', async () => {
    const started = await post('/runs', { definition: 'triage', inputs: { amount: 500 } });
    ids.triage = String(started.id);
    const tab = await studio(1400);
    await open(tab, ids.triage);
    await expect.poll(() => statusOf(tab, 'approval'), { timeout: WAIT }).toBe('paused');
    expect(await statusOf(tab, 'note')).toBe('not-run');
    expect(await statusOf(tab, 'pay')).toBe('waiting');
    const legend = tab.locator('#run-legend');
    expect(await legend.locator('li[data-status="waiting"]').textContent()).toContain('not reached yet');
    expect(await legend.locator('li[data-status="not-run"]').textContent()).toContain('will not run');
    const dashed = (status: string) =>
      tab.evaluate(
        `getComputedStyle(document.querySelector('#run-legend .swatch.status-${status}')).borderTopStyle`,
      );
    expect(await dashed('waiting')).toBe('dashed');
    expect(await dashed('not-run')).toBe('dashed');
    const listed = await tab.locator('.run-item .run-time').first().textContent();
    expect(listed).toMatch(ISO_TIME);
    await tab.close();
  });

  it('puts the answer form beside the run at 900 px wide', async () => {
    const tab = await studio(900);
    await open(tab, ids.triage);
    await expect.poll(() => tab.locator('#waits').isVisible(), { timeout: WAIT }).toBe(true);
    const form = await tab.locator('#waits').boundingBox();
    const graph = await tab.locator('#run-area .graph-card').boundingBox();
    if (form === null || graph === null) throw new Error('The form or the graph is not drawn');
    expect(form.x).toBeGreaterThanOrEqual(graph.x + graph.width - 1);
    expect(form.y).toBeLessThan(graph.y + graph.height);
    expect(form.x + form.width).toBeLessThanOrEqual(900);
    await tab.screenshot({ path: `${ARTIFACTS}studio-900.png` });
    await tab.close();
  });

  it('had no script errors', () => {
    expect(problems).toEqual([]);
  });
});
