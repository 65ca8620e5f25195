import { mkdir } from 'node:fs/promises';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, Crew, createFlow, Task } from '../../src/index.js';
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

if (optedOut) warnSkipped("the studio's browser test of forks");

/** How long a poll waits for the page: generous, for a loaded 2-core machine. */
const WAIT = 30_000;
const HOSTILE = '<img src=x onerror="window.__xss=1"></pre><script>window.__xss=2</script>';

/** A flow whose router sends a small amount to a note and a large one to an escalation. */
function triageFlow() {
  return createFlow({ name: 'triage', initialState: { amount: 0 } })
    .start('check', ({ state }) => `checked ${state.amount} ${HOSTILE}`)
    .router('size', 'check', ({ state }) => (state.amount > 100 ? 'large' : 'small'), {
      routes: ['small', 'large'],
    })
    .listen('note', 'small', ({ state }) => `noted ${state.amount}`)
    .listen('escalate', 'large', ({ state }) => `escalated ${state.amount}`);
}

/** A crew that researches, then writes from what the research said (its model reads the context). */
function articleCrew() {
  const llm = createScriptedModel((request) => {
    if (request.prompt.includes('Research otters')) return 'old facts';
    return `article on ${request.context}`;
  });
  const writer = new Agent({ role: 'Writer', goal: 'write', backstory: 'careful', llm });
  const research = new Task({ name: 'research', description: 'Research otters', agent: writer });
  const write = new Task({ name: 'write', description: 'Write the article', agent: writer });
  return new Crew({ name: 'article', tasks: [research, write] });
}

describe.skipIf(optedOut)('forking from the studio, in Chromium', { timeout: 180_000 }, () => {
  let browser: Browser | undefined;
  let opened: Page | undefined;
  let server: StatecrewServer;
  let listening: Listening;
  let temp: ReturnType<typeof tempStore>;
  const problems: string[] = [];
  const requests: string[] = [];
  const ids = { source: '', fork: '', crew: '', turns: [] as string[] };

  const page = (): Page => {
    if (!hasChromium) throw missingChromium();
    if (opened === undefined) throw new Error('The studio did not open in Chromium');
    return opened;
  };
  const marks = () => page().locator('#checkpoint-list .checkpoint-mark');
  const forkForm = () => page().locator('#fork-area form.fork-form');
  const hashOf = () => page().evaluate('location.hash') as Promise<string>;
  const detail = async (id: string) => {
    const response = await fetch(`${listening.url}/runs/${encodeURIComponent(id)}`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    return (await response.json()) as { status: string; state?: { amount?: number } };
  };

  beforeAll(async () => {
    if (!hasChromium) return;
    temp = tempStore();
    // A finished run kept before the server started: 5 is small, so it took the note.
    const source = await triageFlow().kickoff({ store: temp.store, inputs: { amount: 5 } });
    ids.source = source.id;
    // Two turns of a thread: the second starts from the state the first left.
    for (const amount of [7, 9]) {
      const turn = await triageFlow().kickoff({ store: temp.store, thread: 'chat-42', inputs: { amount } });
      ids.turns.push(turn.id);
    }
    const crewRun = await articleCrew().kickoff({ store: temp.store });
    ids.crew = String(crewRun.metadata.executionId);
    server = createServer({
      flows: [triageFlow()],
      crews: [articleCrew()],
      store: temp.store,
      token: TOKEN,
      runner: false,
    });
    listening = await listen(server, { port: 0 });
    await mkdir(ARTIFACTS, { recursive: true });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
    const tab = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    opened = tab;
    // A 401 before the token is given is the studio asking for it, and the 409 the fork refused with a
    // taken id is what a test asks for; any other error is a problem.
    watchPage(tab, { requests, dialogs: [], problems }, (text) => /\b40[19]\b/.test(text));
    await tab.goto(`${listening.url}/`);
    await tab.locator('#token-input').fill(TOKEN);
    await tab.locator('#token-input').press('Enter');
    await tab.locator('#start-definition option').first().waitFor({ state: 'attached', timeout: WAIT });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await listening?.close();
    await temp?.dispose();
  });

  it("draws a finished flow run's checkpoints on its timeline, one mark each in commit order", async () => {
    const tab = page();
    await tab.locator(`.run-item[data-run-id="${ids.source}"]`).click();
    await expect.poll(() => marks().count(), { timeout: WAIT }).toBe(3);
    const marked = await marks().evaluateAll((all) =>
      all.map((m) => [m.getAttribute('data-seq'), m.textContent]),
    );
    expect(marked).toEqual([
      ['1', '#1check'],
      ['2', '#2size'],
      ['3', '#3note'],
    ]);
    expect(await tab.locator('#run-area .timeline-card #checkpoint-list').count()).toBe(1);
    expect(await tab.locator('#checkpoint-card').isVisible()).toBe(false);
  });

  it('shows the checkpoint chosen with the keyboard: its output (escaped) and the state it left', async () => {
    const tab = page();
    await marks().nth(2).focus();
    await tab.keyboard.press('ArrowLeft');
    await tab.keyboard.press('ArrowLeft');
    expect(await tab.evaluate('document.activeElement.getAttribute("data-checkpoint")')).toBe('check');
    await tab.keyboard.press('Enter');
    await expect.poll(() => tab.locator('#checkpoint-title').textContent()).toBe('Checkpoint #1 · check');
    expect(await marks().nth(0).getAttribute('aria-pressed')).toBe('true');
    expect(await tab.locator('#checkpoint-detail .checkpoint-output').textContent()).toBe(
      `checked 5 ${HOSTILE}`,
    );
    const state = JSON.parse((await tab.locator('#checkpoint-detail .checkpoint-state').textContent()) ?? '');
    expect(state).toMatchObject({ amount: 5 });
    const editor = JSON.parse(await forkForm().locator('textarea[name="state"]').inputValue());
    expect(editor).toEqual(state);
    expect(await forkForm().locator('[data-output-node="check"]').inputValue()).toBe(`checked 5 ${HOSTILE}`);
    expect(await tab.evaluate('window.__xss')).toBeUndefined();
  });

  it('says what is wrong with bad JSON in the page, and sends nothing', async () => {
    const tab = page();
    const sent = requests.length;
    await forkForm().locator('textarea[name="state"]').fill('{"amount": 500');
    await forkForm().locator('button[type="submit"]').click();
    const error = tab.locator('#fork-error');
    await expect.poll(() => error.isVisible(), { timeout: WAIT }).toBe(true);
    expect(await error.textContent()).toMatch(
      /^invalid_json: The state is not JSON \(.+\): nothing was sent$/,
    );
    await forkForm().locator('textarea[name="state"]').fill('[500]');
    await forkForm().locator('button[type="submit"]').click();
    await expect.poll(() => error.textContent()).toContain('The state must be a JSON object');
    expect(requests.slice(sent).filter((url) => url.includes('/fork'))).toEqual([]);
  });

  it("shows the server's refusal with its code", async () => {
    const tab = page();
    await forkForm().locator('textarea[name="state"]').fill('{"amount": 500}');
    await forkForm().locator('input[name="fork-id"]').fill(ids.source);
    const answered = tab.waitForResponse((r) => r.url().endsWith('/fork'));
    await forkForm().locator('button[type="submit"]').click();
    expect((await answered).status()).toBe(409);
    await expect
      .poll(() => tab.locator('#fork-error').textContent(), { timeout: WAIT })
      .toMatch(/^run_exists: /);
    expect(await hashOf()).toBe(`#run=${encodeURIComponent(ids.source)}`);
  });

  it('forks with an edited state and opens the new run, which completes with it', async () => {
    const tab = page();
    await forkForm().locator('input[name="fork-id"]').fill('');
    await forkForm().locator('button[type="submit"]').click();
    await expect.poll(() => hashOf(), { timeout: WAIT }).not.toBe(`#run=${encodeURIComponent(ids.source)}`);
    ids.fork = decodeURIComponent((await hashOf()).replace(/^#run=/, ''));
    await expect
      .poll(() => tab.locator('#run-live').textContent(), { timeout: WAIT })
      .toBe('ended · completed');
    expect((await detail(ids.fork)).status).toBe('completed');
    await expect.poll(() => marks().count(), { timeout: WAIT }).toBe(3);
    const path = await marks().evaluateAll((all) => all.map((m) => m.getAttribute('data-checkpoint')));
    expect(path).toEqual(['check', 'size', 'escalate']);
    await marks().nth(2).click();
    expect(await tab.locator('#checkpoint-detail .checkpoint-output').textContent()).toBe('escalated 500');
    expect(await tab.locator(`.run-item[data-run-id="${ids.fork}"]`).count()).toBe(1);
    await tab.screenshot({ path: `${ARTIFACTS}studio-fork.png`, fullPage: true });
  });

  it('links the fork to its source, and the link opens the source', async () => {
    const tab = page();
    const line = tab.locator('#run-forked-from');
    await expect
      .poll(() => line.textContent(), { timeout: WAIT })
      .toBe(`Forked from ${ids.source} at check · Compare with source`);
    await line.locator('.lineage-source').focus();
    await tab.keyboard.press('Enter');
    await expect.poll(() => hashOf(), { timeout: WAIT }).toBe(`#run=${encodeURIComponent(ids.source)}`);
    await expect
      .poll(() => tab.locator('#run-header').textContent(), { timeout: WAIT })
      .toContain(ids.source);
    await expect.poll(() => marks().count(), { timeout: WAIT }).toBe(3);
    expect(await marks().nth(2).getAttribute('data-checkpoint')).toBe('note');
    expect(await line.count()).toBe(0);
    // The source names its fork (the run list's summaries carry their lineage).
    await expect
      .poll(() => tab.locator('#run-forks').textContent(), { timeout: WAIT })
      .toBe(`Its fork among the runs listed: ${ids.fork} at check`);
    await tab.goBack();
    await expect.poll(() => line.isVisible(), { timeout: WAIT }).toBe(true);
  });

  it('compares the fork with its source: each path, and the differing node with both values', async () => {
    const tab = page();
    await tab.locator('#run-forked-from .lineage-compare').click();
    await expect.poll(() => tab.locator('#compare-area').isVisible(), { timeout: WAIT }).toBe(true);
    expect(await tab.locator('#run-area').isVisible()).toBe(false);
    const size = tab.locator('.compare-node[data-node-id="size"]');
    await expect.poll(() => size.count(), { timeout: WAIT }).toBe(1);
    expect(await size.getAttribute('data-change')).toBe('changed');
    const value = (side: string) =>
      size.locator(`.compare-side[data-side="${side}"] .compare-value[data-field="output"].differs pre`);
    expect(await value('a').textContent()).toBe('small');
    expect(await value('b').textContent()).toBe('large');
    const paths = await tab.evaluate(
      "Array.from(document.querySelectorAll('.compare-path'), (ol) => Array.from(ol.querySelectorAll('li'), (li) => li.textContent))",
    );
    expect(paths).toEqual([
      ['check', 'size', 'note'],
      ['check', 'size', 'escalate'],
    ]);
    expect(await tab.locator('.compare-node[data-node-id="note"]').getAttribute('data-change')).toBe(
      'removed',
    );
    expect(await tab.locator('.compare-node[data-node-id="escalate"]').getAttribute('data-change')).toBe(
      'added',
    );
    // A differing node in a path is a button to its values.
    await tab.locator('.compare-run[data-side="b"] .path-node[data-node-id="size"]').focus();
    await tab.keyboard.press('Enter');
    expect(await tab.evaluate('document.activeElement.getAttribute("data-node-id")')).toBe('size');
    expect(await tab.locator('#compare-summary').textContent()).toContain('The paths part at their node 3');
    expect(await tab.evaluate('window.__xss')).toBeUndefined();
    await tab.screenshot({ path: `${ARTIFACTS}studio-compare.png`, fullPage: true });
  });

  it('forks a crew run with an edited earlier output (no state to edit), and the task after it reads it', async () => {
    const tab = page();
    await tab.evaluate(`location.hash = '#run=' + encodeURIComponent(${JSON.stringify(ids.crew)})`);
    await expect.poll(() => marks().count(), { timeout: WAIT }).toBe(2);
    await marks().nth(0).click();
    await expect.poll(() => tab.locator('#checkpoint-title').textContent()).toBe('Checkpoint #1 · research');
    expect(await forkForm().locator('textarea[name="state"]').count()).toBe(0);
    expect(await tab.locator('#checkpoint-detail .checkpoint-state').count()).toBe(0);
    await forkForm().locator('[data-output-node="research"]').fill('edited facts');
    await forkForm().locator('button[type="submit"]').click();
    await expect.poll(() => hashOf(), { timeout: WAIT }).not.toBe(`#run=${encodeURIComponent(ids.crew)}`);
    await expect
      .poll(() => tab.locator('#run-live').textContent(), { timeout: WAIT })
      .toBe('ended · completed');
    await expect.poll(() => marks().count(), { timeout: WAIT }).toBe(2);
    await marks().nth(1).click();
    expect(await tab.locator('#checkpoint-detail .checkpoint-output').textContent()).toBe(
      'article on edited facts',
    );
    await marks().nth(0).click();
    expect(await tab.locator('#checkpoint-detail .checkpoint-output').textContent()).toBe('edited facts');
    expect(await tab.locator('#run-forked-from').textContent()).toBe(
      `Forked from ${ids.crew} at research · Compare with source`,
    );
  });

  it("names a threaded run's thread and links to its other runs", async () => {
    const tab = page();
    const [first, second] = ids.turns as [string, string];
    await tab.evaluate(`location.hash = '#run=' + encodeURIComponent(${JSON.stringify(second)})`);
    const line = tab.locator('#run-thread');
    await expect
      .poll(() => line.textContent(), { timeout: WAIT })
      .toBe(`Thread chat-42 · its other runs: ${first} (completed)`);
    expect(await tab.locator('#run-forked-from').count()).toBe(0);
    await line.locator('.lineage-thread-run').click();
    await expect.poll(() => hashOf(), { timeout: WAIT }).toBe(`#run=${encodeURIComponent(first)}`);
    await expect
      .poll(() => line.textContent(), { timeout: WAIT })
      .toBe(`Thread chat-42 · its other runs: ${second} (completed)`);
  });

  it('had no script errors', () => {
    expect(problems).toEqual([]);
    expect(requests.filter((url) => !url.startsWith(listening.url))).toEqual([]);
  });
});
