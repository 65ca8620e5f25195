import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Agent, Crew, createFlow, type StatecrewEvent, Task } from '../../src/index.js';
import { createScriptedModel } from '../../src/testing.js';
import {
  CONTENT_SECURITY_POLICY,
  type RunView,
  renderRunView,
  toCrewView,
  toFlowView,
  writeRunView,
} from '../../src/view/index.js';

const PAYLOAD =
  'Found it <script>alert(1)</script> and <img src=x onerror=alert(1)> then </script><!-- x \u2028 y & z';

async function hostileView(): Promise<RunView> {
  const llm = createScriptedModel([PAYLOAD, 'fine']);
  const worker = new Agent({ role: 'Evil <b>"role"</b>', llm, maxRetries: 0 });
  const crew = new Crew({
    name: 'crew <script>',
    tasks: [
      new Task({ name: 'a<img src=x onerror=alert(1)>', description: 'first & <i>only</i>', agent: worker }),
      new Task({ name: 'second', description: 'second', agent: worker }),
    ],
  });
  const run = crew.run();
  const events: StatecrewEvent[] = [];
  run.events$.subscribe((e) => events.push(e));
  return toCrewView(crew, { output: await run.result, events });
}

/** The page without its JSON data block, and the block's text. */
function split(html: string): { outside: string; data: string } {
  const match = /<script type="application\/json" id="run-data">([\s\S]*?)<\/script>/.exec(html);
  if (match === null) throw new Error('no data block');
  return { outside: html.replace(match[0], ''), data: match[1] as string };
}

describe('renderRunView', () => {
  it('escapes every model and user text: no payload outside the data block, no < inside it', async () => {
    const view = await hostileView();
    const html = renderRunView(view);
    const { outside, data } = split(html);
    for (const raw of ['<img src=x onerror', '<script>alert', '<b>"role"', '<i>only</i>', 'crew <script>']) {
      expect(html).not.toContain(raw);
    }
    expect(outside).toContain('a&lt;img src=x onerror=alert(1)&gt;');
    expect(data).not.toMatch(/[<>\u2028\u2029]/);
    expect(data).not.toMatch(/&(?!quot;)/);
    expect(data).toContain('\\u003cscript\\u003ealert(1)\\u003c/script\\u003e');
    expect(JSON.parse(data)).toEqual(JSON.parse(JSON.stringify(view)));
    expect(JSON.parse(data).nodes[0].output).toBe(PAYLOAD);
    // Exactly two script elements: the data block, and the page's own script.
    expect(html.match(/<script/g)).toHaveLength(2);
  });

  it('keeps a tampered status or kind (a hand-edited stored run) from breaking out of its attribute', async () => {
    const view = await hostileView();
    const hostile = '"><img src=x onerror=alert(1)>';
    Object.assign(view.nodes[0] ?? {}, { status: hostile, kind: hostile });
    Object.assign(view.timeline[0] ?? {}, { status: hostile });
    const { outside } = split(renderRunView(view));
    expect(outside).not.toContain('<img');
    expect(outside).toContain('class="node status-imgsrcxonerroralert1 kind-imgsrcxonerroralert1"');
  });

  it('is self-contained: no external resource, a strict policy allowing only its own script and style by hash', async () => {
    const html = renderRunView(await hostileView());
    // No element has a src, href or event handler attribute (quoted values, escaped, set aside).
    const tags = html.replace(/"[^"]*"/g, '""').match(/<[a-z][^>]*>/gi) ?? [];
    expect(tags.filter((tag) => /\s(?:src|href|on[a-z]+)\s*=/i.test(tag))).toEqual([]);
    expect(html).not.toMatch(/https?:\/\/(?!www\.w3\.org\/2000\/svg)/);
    expect(html).not.toMatch(/@import|url\((?!#)/);
    expect(html).toContain(
      `<meta http-equiv="Content-Security-Policy" content="${CONTENT_SECURITY_POLICY}">`,
    );
    expect(CONTENT_SECURITY_POLICY).toMatch(
      /^default-src 'none'; script-src 'sha256-[^']+'; style-src 'sha256-[^']+'/,
    );
    const script = /<script>([\s\S]*?)<\/script>/.exec(html)?.[1] ?? '';
    const hash = createHash('sha256').update(script).digest('base64');
    expect(CONTENT_SECURITY_POLICY).toContain(`'sha256-${hash}'`);
    expect(script).not.toContain('innerHTML');
  });

  it('draws a node element per view node and a legend entry per status', async () => {
    const view = await hostileView();
    const html = renderRunView(view);
    expect(html.match(/<g class="node /g)).toHaveLength(view.nodes.length);
    expect(html).toContain('data-status="completed"');
    for (const status of ['completed', 'running', 'paused', 'failed', 'blocked']) {
      expect(html).toContain(`<span class="swatch status-${status}"></span>${status}</li>`);
    }
    // What waiting and not-run mean is said: one may still run, the other will not.
    expect(html).toContain(
      '<span class="swatch status-waiting"></span>waiting <span class="muted">· not reached yet</span></li>',
    );
    expect(html).toContain(
      '<span class="swatch status-not-run"></span>not-run <span class="muted">· will not run</span></li>',
    );
    expect(html.match(/<g class="edge taken/g)).toHaveLength(1);
  });

  it('labels the edges of a flow with their routes and highlights the path the run took', async () => {
    const flow = createFlow({ name: 'triage', initialState: {} })
      .start('read', () => 'ticket')
      .router('route', 'read', () => 'urgent', { routes: ['urgent', 'later'] })
      .listen('page', 'urgent', () => 'paged')
      .listen('queue', 'later', () => 'queued');
    const run = flow.run();
    const events: StatecrewEvent[] = [];
    run.events$.subscribe((e) => events.push(e));
    const html = renderRunView(toFlowView(flow, { output: await run.result, events }));
    expect(html).toMatch(/<g class="edge taken" data-from="route" data-to="page">.*>urgent<\/text><\/g>/);
    expect(html).toMatch(/<g class="edge idle" data-from="route" data-to="queue">.*>later<\/text><\/g>/);
    expect(html.match(/<g class="node /g)).toHaveLength(4);
    expect(html).toContain('data-node="queue" data-status="not-run"');
  });

  it('writes the page, creating its folder, and returns the path', async () => {
    const root = await mkdtemp(join(tmpdir(), 'statecrew-view-'));
    try {
      const view = await hostileView();
      const path = await writeRunView(view, join(root, 'deep', 'er', 'run.html'));
      expect(path).toBe(join(root, 'deep', 'er', 'run.html'));
      expect(await readFile(path, 'utf8')).toBe(renderRunView(view));
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
