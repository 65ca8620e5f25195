import { mkdir } from 'node:fs/promises';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, Crew, Task } from '../../src/index.js';
import { createServer, type Listening, listen, type StatecrewServer } from '../../src/serve/index.js';
import { liveRuns } from '../../src/serve/server.js';
import { createScriptedModel, holdText } from '../../src/testing.js';
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

if (optedOut) warnSkipped("the studio's streaming text test");

/** How long a poll waits for the page: generous, for a loaded 2-core machine. */
const WAIT = 30_000;
/** What the model writes, piece by piece; the second piece is hostile HTML, to be shown as text. */
const PIECES = ['Once ', 'upon <img src=x onerror="window.__xss=1"> ', 'a time'];

describe.skipIf(optedOut)(
  "the studio shows a running task's text as it streams",
  { timeout: 120_000 },
  () => {
    let browser: Browser | undefined;
    let opened: Page | undefined;
    let server: StatecrewServer;
    let listening: Listening;
    let temp: ReturnType<typeof tempStore>;
    const text = holdText(PIECES);
    const problems: string[] = [];

    const page = (): Page => {
      if (!hasChromium) throw missingChromium();
      if (opened === undefined) throw new Error('The studio did not open in Chromium');
      return opened;
    };

    beforeAll(async () => {
      if (!hasChromium) return;
      temp = tempStore();
      const llm = createScriptedModel([{ chunks: text }]);
      const writer = new Agent({ role: 'Writer', goal: 'write', backstory: 'fluent', llm });
      const crew = new Crew({
        name: 'writer',
        tasks: [new Task({ name: 'draft', description: 'Write', agent: writer })],
      });
      server = createServer({ crews: [crew], store: temp.store, token: TOKEN, runner: false });
      listening = await listen(server, { port: 0 });
      await mkdir(ARTIFACTS, { recursive: true });
      browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
      const tab = await browser.newPage({ viewport: { width: 1400, height: 900 } });
      opened = tab;
      watchPage(tab, { requests: [], dialogs: [], problems });
      // The token the studio would ask for, in the tab's session as its form keeps it.
      await tab.addInitScript(`sessionStorage.setItem('statecrew.token', ${JSON.stringify(TOKEN)})`);
    }, 60_000);

    afterAll(async () => {
      text.releaseAll();
      await browser?.close();
      await server?.close();
      await listening?.close();
      await temp?.dispose();
    });

    it('writes each piece under "Writing now" while the node runs, then leaves the output to the node', async () => {
      const response = await fetch(`${listening.url}/runs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ definition: 'writer', inputs: {}, id: 'story' }),
      });
      expect(response.status).toBe(202);
      await page().goto(`${listening.url}/#run=story`);
      const node = page().locator('#graph-viewport svg.graph [data-node="draft"]');
      const writing = page().locator('#writing-nodes [data-node-id="draft"] .writing-text');
      await expect.poll(() => node.getAttribute('data-status'), { timeout: WAIT }).toBe('running');
      // The studio follows the run's events: the text it streams from now on reaches it.
      await expect
        .poll(() => page().locator('#run-live').textContent(), { timeout: WAIT })
        .toMatch(/^live · event/);
      expect(await page().locator('#writing').isVisible()).toBe(false);
      text.release();
      await expect.poll(() => writing.textContent(), { timeout: WAIT }).toBe('Once ');
      text.release();
      await expect.poll(() => writing.textContent(), { timeout: WAIT }).toBe(PIECES.slice(0, 2).join(''));
      expect(await page().locator('#writing').isVisible()).toBe(true);
      expect(await node.getAttribute('data-status')).toBe('running');
      await page().screenshot({ path: `${ARTIFACTS}studio-writing.png` });
      expect(await page().evaluate('typeof window.__xss')).toBe('undefined');
      expect(await page().locator('#writing img').count()).toBe(0);
      // The last piece ends the reply: the node completes, and its text is its output, no longer "being written".
      text.release();
      await liveRuns(server).get('story')?.done;
      await expect.poll(() => node.getAttribute('data-status'), { timeout: WAIT }).toBe('completed');
      await expect.poll(() => page().locator('#writing').isVisible(), { timeout: WAIT }).toBe(false);
      await node.click();
      await expect
        .poll(() => page().locator('#panel').textContent(), { timeout: WAIT })
        .toContain(PIECES.join(''));
      expect(problems).toEqual([]);
    });
  },
);
