import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunView } from '../../src/view/index.js';
import { CLI_TIMEOUT, cli, fixture, type Running, start } from './cli-helpers.js';

const cwd = mkdtempSync(join(tmpdir(), 'statecrew-cli-serve-plot-'));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

/** The view a written HTML file carries in its JSON block. */
function viewIn(file: string): RunView {
  const html = readFileSync(file, 'utf8');
  const json = /<script type="application\/json" id="run-data">(.*?)<\/script>/s.exec(html)?.[1] ?? '';
  return JSON.parse(json) as RunView;
}

/** A served run read back until it is no longer running (each answer asks again). */
async function settled(url: string, id: string): Promise<{ status: string }> {
  for (;;) {
    const run = (await (await fetch(`${url}/runs/${id}`)).json()) as { status: string; live: boolean };
    if (!run.live && run.status !== 'running') return run;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

/** Starts `statecrew serve <file>` on a free port without a token; resolves with its URL, rejects if it ends first. */
async function serve(file: string, store: string): Promise<{ server: Running; url: string }> {
  const server = start(['serve', file, '--port', '0', '--store', store, '--insecure-no-auth'], { cwd });
  const ended = server.done.then((ran) => {
    throw new Error(`statecrew serve ended (${ran.code}): ${ran.stderr}`);
  });
  await Promise.race([server.whenPrinted('no authentication'), ended]);
  const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(server.output())?.[1] ?? '';
  return { server, url };
}

/** Posts a run of `definition` with `inputs` under `id`. */
async function post(url: string, definition: string, id: string, inputs: Record<string, unknown>) {
  const posted = await fetch(`${url}/runs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ definition, inputs, id }),
  });
  expect(posted.status).toBe(202);
}

/** Stops a server with SIGTERM and checks it ended well. */
async function stop(server: Running): Promise<void> {
  server.child.kill('SIGTERM');
  expect((await server.done).code).toBe(0);
}

describe('statecrew serve of a CrewAI folder, and plot of the runs a server started', {
  timeout: CLI_TIMEOUT,
}, () => {
  it('serves each crew of a folder whose crew.ts defines several, by its name', async () => {
    const { server, url } = await serve(fixture('crewai-two-crews'), `sqlite:${join(cwd, 'two.db')}`);
    try {
      const served = (await (await fetch(`${url}/definitions`)).json()) as {
        definitions: { name: string }[];
      };
      expect(served.definitions.map((d) => d.name).sort()).toEqual(['idea', 'template']);
      await post(url, 'idea', 'idea-run', { idea: 'a landing page' });
      expect(await settled(url, 'idea-run')).toMatchObject({ status: 'completed' });
      const tasks = (await (await fetch(`${url}/runs/idea-run`)).json()) as { nodes?: { nodeId: string }[] };
      expect(JSON.stringify(tasks)).toContain('expand_idea_task');
      expect(JSON.stringify(tasks)).not.toContain('choose_template_task');
      await stop(server);
    } finally {
      server.child.kill('SIGKILL');
    }
  });

  it('serves a CrewAI project folder as a crew named after it, and plots its run by id from the store alone', async () => {
    const store = `sqlite:${join(cwd, 'crewai.db')}`;
    const { server, url } = await serve(fixture('crewai-project'), store);
    try {
      expect(server.output()).toContain('(serving crewai-project)');
      const served = (await (await fetch(`${url}/definitions`)).json()) as {
        definitions: { name: string }[];
      };
      expect(served.definitions.map((d) => d.name)).toEqual(['crewai-project']);
      await post(url, 'crewai-project', 'served-crew', { topic: 'AI' });
      expect(await settled(url, 'served-crew')).toMatchObject({ status: 'completed' });
      await stop(server);
    } finally {
      server.child.kill('SIGKILL');
    }
    const output = join(cwd, 'crew-view.html');
    const plotted = await cli(['plot', 'served-crew', '--store', store, '-o', output], { cwd });
    expect(plotted.stderr).toBe('');
    expect(plotted.code).toBe(0);
    expect(plotted.stdout).toBe(`${output}\n`);
    const view = viewIn(output);
    expect(view).toMatchObject({
      kind: 'crew',
      name: 'crewai-project',
      id: 'served-crew',
      status: 'completed',
    });
    expect(view.nodes.map((n) => [n.id, n.status])).toEqual([
      ['research_task', 'completed'],
      ['reporting_task', 'completed'],
    ]);
    expect(view.nodes[0]?.output).toBe(
      'gpt-4o-mini as AI Senior Data Researcher: Conduct a thorough research about AI',
    );
    expect(view.edges).toEqual([
      expect.objectContaining({ from: 'research_task', to: 'reporting_task', taken: true }),
    ]);
  });

  it('plots a flow run a server started and a human answered, by id, with the steps it took in the order they ran', async () => {
    const store = `sqlite:${join(cwd, 'flow.db')}`;
    const { server, url } = await serve(fixture('refund-flow.ts'), store);
    try {
      await post(url, 'refunds', 'served-flow', { amount: 500 });
      expect(await settled(url, 'served-flow')).toMatchObject({ status: 'paused' });
      const resumed = await fetch(`${url}/runs/served-flow/resume`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ route: 'approved' }),
      });
      expect(resumed.status).toBe(202);
      expect(await settled(url, 'served-flow')).toMatchObject({ status: 'completed' });
      await stop(server);
    } finally {
      server.child.kill('SIGKILL');
    }
    const output = join(cwd, 'flow-view.html');
    const plotted = await cli(['plot', 'served-flow', '--store', store, '-o', output], { cwd });
    expect(plotted.stderr).toBe('');
    expect(plotted.code).toBe(0);
    const view = viewIn(output);
    expect(view).toMatchObject({ kind: 'flow', name: 'refunds', id: 'served-flow', status: 'completed' });
    expect(view.nodes.map((n) => [n.id, n.kind, n.status])).toEqual([
      ['check', 'step', 'completed'],
      ['size', 'router', 'completed'],
      ['approval', 'human', 'completed'],
      ['pay', 'step', 'completed'],
    ]);
    expect(view.nodes[2]?.human).toMatchObject({ route: 'approved' });
    // Which step listens to what is the definition's to say: the order steps ran in does not tell it.
    expect(view.edges).toEqual([]);
    expect(view.timeline.filter((e) => e.kind === 'run').map((e) => e.node)).toEqual([
      'check',
      'size',
      'approval',
      'pay',
    ]);
  });

  it('says a plotted file that does not exist is missing, not a run the store lacks', async () => {
    const plotted = await cli(['plot', 'nosuch.ts', '--store', 'memory'], { cwd });
    expect(plotted.code).toBe(1);
    expect(plotted.stderr).toBe('statecrew: nosuch.ts: no such file or directory (unknown_command_target)\n');
  });
});
