import { mkdir, stat } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, Crew, type ModelResponse, type StatecrewEvent, Task } from '../../src/index.js';
import { createScriptedModel } from '../../src/models/scripted.js';
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

if (optedOut) warnSkipped("the run view's browser test");

const PAYLOAD = [
  'Three findings.',
  '<script>window.__xss=1</script>',
  '<img src=x onerror="window.__xss=2">',
  '</script><!-- the end -->',
].join('\n');

/** A graph crew whose first output is hostile HTML; one task retries, one fails and blocks another. */
async function hostileRun(): Promise<{ view: RunView }> {
  let verifyCalls = 0;
  const llm = createScriptedModel((request) => {
    const task = taskLine(request.prompt).slice('Task: '.length);
    if (task === 'Research the market') return PAYLOAD;
    if (task === 'Verify the findings' && verifyCalls++ === 0) return new Error('rate limited, try again');
    if (task === 'Write an appendix') return new Error('appendix source is gone');
    return `${task}: done`;
  });
  const analyst = new Agent({ role: 'Analyst', llm, maxRetries: 1, retryDelayMs: 1 });
  const writer = new Agent({ role: 'Writer', llm, maxRetries: 0 });
  const research = new Task({ name: 'research', description: 'Research the market', agent: analyst });
  const verify = new Task({
    name: 'verify',
    description: 'Verify the findings',
    agent: analyst,
    context: [research],
  });
  const outline = new Task({
    name: 'outline',
    description: 'Outline the report',
    agent: writer,
    context: [research],
  });
  const write = new Task({
    name: 'write',
    description: 'Write the report',
    agent: writer,
    context: [verify, outline],
  });
  const appendix = new Task({
    name: 'appendix',
    description: 'Write an appendix',
    agent: writer,
    context: [research],
  });
  const index = new Task({
    name: 'index',
    description: 'Index the appendix',
    agent: writer,
    context: [appendix],
  });
  const crew = new Crew({
    name: 'market report',
    tasks: [research, verify, outline, write, appendix, index],
    process: 'graph',
  });
  const run = crew.run();
  const events: StatecrewEvent[] = [];
  run.events$.subscribe((e) => events.push(e));
  return { view: toCrewView(crew, { output: await run.result, events }) };
}

/** A model turn that calls one tool. */
const toolCall = (name: string, args: Record<string, unknown>, id: string): ModelResponse => ({
  text: '',
  toolCalls: [{ id, name, args }],
});

const HOSTILE_TASK = 'Find facts <img src=x onerror="window.__xss=3"> about otters';
const REPLY = 'Otters hold hands while they sleep';

/** A writer that delegates a task (hostile text) to the researcher, after a refused call to a coworker it does not have. */
async function delegatingRun(): Promise<RunView> {
  const writer = new Agent({
    role: 'Writer',
    llm: createScriptedModel([
      toolCall('ask_question', { coworker: 'Astronaut', question: 'Up there?', context: '' }, 'c1'),
      toolCall('delegate_work', { coworker: 'Researcher', task: HOSTILE_TASK, context: 'kids' }, 'c2'),
      'An article about otters',
    ]),
    allowDelegation: true,
  });
  const researcher = new Agent({ role: 'Researcher', llm: createScriptedModel([REPLY]) });
  const crew = new Crew({
    name: 'otters',
    agents: [writer, researcher],
    tasks: [new Task({ name: 'write', description: 'Write about otters', agent: writer })],
  });
  const run = crew.run();
  const events: StatecrewEvent[] = [];
  run.events$.subscribe((e) => events.push(e));
  return toCrewView(crew, { output: await run.result, events });
}

describe.skipIf(optedOut)('the run view in Chromium', () => {
  let browser: Browser | undefined;
  let opened: Page | undefined;
  let view: RunView;
  let url: string;
  const requests: string[] = [];
  const dialogs: string[] = [];
  const problems: string[] = [];

  /** The opened page; each test fails with the reason when Chromium is missing. */
  const page = (): Page => {
    if (!hasChromium) throw missingChromium();
    if (opened === undefined) throw new Error('The run view did not open in Chromium');
    return opened;
  };

  beforeAll(async () => {
    if (!hasChromium) return;
    ({ view } = await hostileRun());
    await mkdir(ARTIFACTS, { recursive: true });
    const file = await writeRunView(view, `${ARTIFACTS}run-view.html`);
    url = pathToFileURL(file).href;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
    const page = await browser.newPage({ viewport: { width: 1440, height: 960 } });
    opened = page;
    watchPage(page, { requests, dialogs, problems });
    await page.goto(url);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
  });

  it('renders the graph: a node element per task, coloured by status', async () => {
    const nodes = page().locator('svg.graph [data-node]');
    await expect.poll(() => nodes.count()).toBe(6);
    expect(view.nodes).toHaveLength(6);
    const byStatus = await nodes.evaluateAll((els) =>
      els.map((e) => `${e.getAttribute('data-node')}:${e.getAttribute('data-status')}`),
    );
    expect(byStatus.sort()).toEqual([
      'appendix:failed',
      'index:blocked',
      'outline:completed',
      'research:completed',
      'verify:completed',
      'write:completed',
    ]);
    // The page's own style applies (allowed by its hash under the policy).
    expect(
      await page().evaluate(`getComputedStyle(document.querySelector('.card')).borderTopLeftRadius`),
    ).toBe('10px');
  });

  it('shows a clicked node’s output in the panel as text: the payload visible literally, nothing run', async () => {
    await page().locator('svg.graph [data-node="research"]').click();
    await expect.poll(() => page().locator('#panel h2').textContent()).toContain('research');
    const texts = await page().locator('#panel pre').allTextContents();
    expect(texts).toContain(PAYLOAD);
    expect(await page().locator('#panel').textContent()).toContain('<img src=x onerror="window.__xss=2">');
    expect(await page().locator('#panel img, #panel script').count()).toBe(0);
    expect(await page().evaluate('document.querySelectorAll("img").length')).toBe(0);
    expect(await page().evaluate('typeof window.__xss')).toBe('undefined');
  });

  it('shows a timeline row’s node: retries and errors in the panel', async () => {
    await page().locator('[data-timeline-node="verify"]').click();
    await expect.poll(() => page().locator('#panel h2').textContent()).toContain('verify');
    const cells = await page().locator('#panel .facts').first().locator('dt, dd').allTextContents();
    const facts = Object.fromEntries(cells.flatMap((cell, i) => (i % 2 === 0 ? [[cell, cells[i + 1]]] : [])));
    expect(facts).toMatchObject({ Status: 'completed', Attempts: '2', Retries: '1' });
    await page().locator('svg.graph [data-node="appendix"]').click();
    expect(await page().locator('#panel pre.error').textContent()).toBe('appendix source is gone');
  });

  describe('of agents delegating', () => {
    let delegation: Page | undefined;
    const shown = (): Page => {
      page();
      if (delegation === undefined) throw new Error('The delegation view did not open in Chromium');
      return delegation;
    };

    beforeAll(async () => {
      if (browser === undefined) return;
      const file = await writeRunView(await delegatingRun(), `${ARTIFACTS}run-view-delegation.html`);
      delegation = await browser.newPage({ viewport: { width: 1440, height: 960 } });
      delegation.on('dialog', (dialog) => {
        dialogs.push(dialog.message());
        void dialog.dismiss();
      });
      delegation.on('pageerror', (error) => problems.push(error.message));
      await delegation.goto(pathToFileURL(file).href);
    }, 60_000);

    it('draws the message between the two agents on their lanes, and shows it with the reply in the panel', async () => {
      const lanes = shown().locator('svg.lanes');
      await expect.poll(() => lanes.locator('.lane').count()).toBe(2);
      expect(await lanes.locator('.lane .row-label').allTextContents()).toEqual(['Writer', 'Researcher']);
      const message = lanes.locator('g.message[data-from="Writer"][data-to="Researcher"]');
      expect(await message.isVisible()).toBe(true);
      expect(await message.locator('title').textContent()).toContain(
        `Writer → Researcher: delegated "${HOSTILE_TASK}"`,
      );
      await message.click();
      const entry = shown().locator('#panel article.message.selected');
      await expect.poll(() => entry.count()).toBe(1);
      expect(await entry.isVisible()).toBe(true);
      expect(await entry.locator('.message-head').textContent()).toBe('Writer → Researcher');
      expect(await entry.locator('pre.reply').textContent()).toBe(REPLY);
      expect(await entry.locator('pre').first().textContent()).toBe(HOSTILE_TASK);
      // The refused call is there too, with its code; the totals say what each agent spent.
      expect(
        await shown().locator('#panel article.message.msg-refused .message-state').textContent(),
      ).toContain('unknown_coworker');
      expect(await shown().locator('.agent-totals dt').allTextContents()).toEqual(['Writer', 'Researcher']);
      await shown().screenshot({ path: `${ARTIFACTS}run-view-delegation.png`, fullPage: true });
      expect(await shown().locator('img').count()).toBe(0);
      expect(await shown().evaluate('typeof window.__xss')).toBe('undefined');
    });
  });

  it('runs no payload and fetches nothing: no dialog, no request beyond the page, no error', async () => {
    await page().locator('svg.graph [data-node="research"]').click();
    await page().screenshot({ path: `${ARTIFACTS}run-view.png`, fullPage: true });
    expect((await stat(`${ARTIFACTS}run-view.png`)).size).toBeGreaterThan(10_000);
    expect(dialogs).toEqual([]);
    expect(requests.filter((r) => r !== url)).toEqual([]);
    expect(problems).toEqual([]);
    expect(await page().evaluate('typeof window.__xss')).toBe('undefined');
  });
});
