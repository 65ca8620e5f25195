import { describe, expect, it } from 'vitest';
import {
  Agent,
  Crew,
  type CrewOutput,
  type ManagerFunctions,
  type StatecrewEvent,
  Task,
} from '../../src/index.js';
import { createScriptedModel } from '../../src/testing.js';
import { type RunView, toCrewView } from '../../src/view/index.js';
import { agent, echoModel, taskLine, tickingClock } from '../helpers.js';

async function viewOf(crew: Crew): Promise<{ view: RunView; out: CrewOutput; events: StatecrewEvent[] }> {
  const run = crew.run({ clock: tickingClock() });
  const events: StatecrewEvent[] = [];
  run.events$.subscribe((e) => events.push(e));
  const out = await run.result;
  return { view: toCrewView(crew, { output: out, events }), out, events };
}

const statuses = (view: RunView) => Object.fromEntries(view.nodes.map((n) => [n.id, n.status]));
const taken = (view: RunView) => view.edges.filter((e) => e.taken).map((e) => `${e.from}->${e.to}`);
const node = (view: RunView, id: string) => view.nodes.find((n) => n.id === id);

function chainTasks(names: string[], llm = echoModel()) {
  const writer = new Agent({ role: 'Writer', llm, maxRetries: 0 });
  return names.map((name) => new Task({ name, description: `Do ${name}`, agent: writer }));
}

describe('toCrewView', () => {
  it('draws a sequential crew as a chain and shows each task run with its prompt, context and output', async () => {
    const crew = new Crew({ name: 'blog', tasks: chainTasks(['outline', 'draft', 'polish']) });
    const { view, out } = await viewOf(crew);
    expect(view).toMatchObject({ kind: 'crew', name: 'blog', process: 'sequential', status: 'completed' });
    expect(view.id).toBe(out.metadata.executionId);
    expect(view.nodes.map((n) => n.id)).toEqual(['outline', 'draft', 'polish']);
    expect(taken(view)).toEqual(['outline->draft', 'draft->polish']);
    expect(node(view, 'draft')).toMatchObject({
      status: 'completed',
      agent: 'Writer',
      context: 'Writer: Do outline',
      output: 'Writer: Do draft',
      attempts: 1,
      retries: 0,
    });
    expect(taskLine(node(view, 'draft')?.prompt ?? '')).toBe('Task: Do draft');
    expect(node(view, 'draft')?.usage?.calls).toBe(1);
    expect(view.timeline.map((e) => e.node)).toEqual(['outline', 'draft', 'polish']);
    expect(view.totals.usage).toEqual({
      inputTokens: expect.any(Number),
      outputTokens: expect.any(Number),
      totalTokens: expect.any(Number),
      calls: 3,
    });
    expect(view.totals.timeMs).toBe(out.totalTimeMs);
    expect(JSON.parse(JSON.stringify(view))).toEqual(view);
  });

  it('shows a failed graph task, its blocked descendants and the independent branch that ran', async () => {
    const llm = createScriptedModel((r) => (taskLine(r.prompt) === 'Task: b' ? new Error('b broke') : 'ok'));
    const worker = new Agent({ role: 'W', llm, maxRetries: 0 });
    const a = new Task({ name: 'a', description: 'a', agent: worker });
    const b = new Task({ name: 'b', description: 'b', agent: worker, context: [a] });
    const c = new Task({ name: 'c', description: 'c', agent: worker, context: [b] });
    const d = new Task({ name: 'd', description: 'd', agent: worker, context: [c] });
    const e = new Task({ name: 'e', description: 'e', agent: worker, context: [a] });
    const { view } = await viewOf(new Crew({ tasks: [a, b, c, d, e], process: 'graph' }));
    expect(view.status).toBe('partial');
    expect(statuses(view)).toEqual({
      a: 'completed',
      b: 'failed',
      c: 'blocked',
      d: 'blocked',
      e: 'completed',
    });
    expect(node(view, 'b')).toMatchObject({ error: 'b broke', attempts: 1 });
    expect(view.edges.map((x) => `${x.from}->${x.to}`)).toEqual(['a->b', 'b->c', 'c->d', 'a->e']);
    expect(taken(view)).toEqual(['a->b', 'a->e']);
    expect(view.timeline.map((x) => x.node).sort()).toEqual(['a', 'b', 'e']);
  });

  it('draws a parallel crew as a fan-out from its start', async () => {
    const { view } = await viewOf(new Crew({ tasks: chainTasks(['x', 'y', 'z']), process: 'parallel' }));
    expect(view.nodes.map((n) => [n.id, n.kind, n.status])).toEqual([
      ['x', 'task', 'completed'],
      ['y', 'task', 'completed'],
      ['z', 'task', 'completed'],
      ['@start', 'start', 'completed'],
    ]);
    expect(taken(view)).toEqual(['@start->x', '@start->y', '@start->z']);
  });

  it('draws a hierarchical crew as manager → tasks → synthesis, with the delegations on the edges', async () => {
    const llm = echoModel();
    const manager: ManagerFunctions = {
      allocate: (description) => (description.startsWith('Write') ? 'Writer' : 'Researcher'),
      synthesize: (goal, outputs) => `${goal}: ${outputs.join(' + ')}`,
    };
    const crew = new Crew({
      agents: [agent('Researcher', llm), agent('Writer', llm)],
      tasks: [
        new Task({ name: 'dig', description: 'Research it' }),
        new Task({ name: 'say', description: 'Write it' }),
      ],
      process: 'hierarchical',
      manager,
      goal: 'report',
    });
    const { view } = await viewOf(crew);
    expect(view.nodes).toHaveLength(4);
    expect(statuses(view)).toEqual({
      dig: 'completed',
      say: 'completed',
      '@manager': 'completed',
      '@synthesis': 'completed',
    });
    expect(node(view, '@synthesis')?.output).toBe('report: Researcher: Research it + Writer: Write it');
    expect(node(view, '@manager')?.notes).toEqual(['dig → Researcher', 'say → Writer']);
    expect(node(view, 'say')?.agent).toBe('Writer');
    expect(view.edges.filter((e) => e.from === '@manager').map((e) => e.label)).toEqual([
      'allocates → Researcher',
      'allocates → Writer',
    ]);
    expect(taken(view)).toHaveLength(4);
  });

  it('shows a loop task once with its iterations, the judge with its verdicts and the back edge taken', async () => {
    const judge = createScriptedModel(['NO, again', 'YES']);
    const crew = new Crew({
      tasks: chainTasks(['draft', 'polish']),
      process: 'loop',
      loop: { condition: 'it reads well', judge, maxIterations: 4 },
      summarize: { llm: createScriptedModel(['the summary']) },
    });
    const { view } = await viewOf(crew);
    expect(view.nodes.map((n) => n.id)).toEqual(['draft', 'polish', '@judge', '@done', 'summary']);
    expect(node(view, 'draft')?.runs.map((r) => [r.id, r.iteration, r.status])).toEqual([
      ['draft#1', 1, 'completed'],
      ['draft#2', 2, 'completed'],
    ]);
    expect(node(view, '@judge')?.runs.map((r) => r.output)).toEqual(['NO, again', 'YES']);
    expect(node(view, '@judge')?.description).toBe('it reads well');
    expect(node(view, 'summary')).toMatchObject({
      status: 'completed',
      output: 'the summary',
      kind: 'summary',
    });
    expect(view.edges.find((e) => e.back === true)).toMatchObject({
      from: '@judge',
      to: 'draft',
      label: 'NO',
      taken: true,
    });
    expect(view.edges.find((e) => e.label === 'YES')).toMatchObject({ to: '@done', taken: true });
    expect(view.timeline.map((e) => e.label).slice(0, 4)).toEqual([
      'draft #1',
      'polish #1',
      'draft #2',
      'polish #2',
    ]);
  });

  it('shows retries as attempts on the timeline', async () => {
    let calls = 0;
    const llm = createScriptedModel(() => (calls++ === 0 ? new Error('flaky') : 'fine'));
    const worker = new Agent({ role: 'W', llm, maxRetries: 2, retryDelayMs: 1 });
    const crew = new Crew({ tasks: [new Task({ name: 'only', description: 'only', agent: worker })] });
    const { view } = await viewOf(crew);
    expect(node(view, 'only')).toMatchObject({ status: 'completed', attempts: 2, retries: 1 });
    const [entry] = view.timeline;
    expect(entry?.spans?.map((s) => s.ok)).toEqual([false, true]);
  });

  it('shows a run still going from its events alone: done, running, and waiting tasks', async () => {
    const crew = new Crew({ tasks: chainTasks(['one', 'two', 'three']) });
    const { events } = await viewOf(crew);
    const cut = events.findIndex((e) => e.type === 'node.started' && e.nodeId === 'two');
    const view = toCrewView(crew, { events: events.slice(0, cut + 1) });
    expect(view.status).toBe('running');
    expect(statuses(view)).toEqual({ one: 'completed', two: 'running', three: 'waiting' });
    expect(taken(view)).toEqual(['one->two']);
  });

  it('shows a definition alone: every node not-run, no edge taken, no timeline', () => {
    const judge = createScriptedModel([]);
    const crew = new Crew({
      tasks: chainTasks(['a', 'b']),
      process: 'loop',
      loop: { condition: 'done', judge },
    });
    const view = toCrewView(crew);
    expect(view.status).toBeUndefined();
    expect(view.nodes.every((n) => n.status === 'not-run')).toBe(true);
    expect(view.edges.some((e) => e.taken)).toBe(false);
    expect(view.edges.map((e) => [e.from, e.to, e.label])).toEqual([
      ['a', 'b', undefined],
      ['b', '@judge', undefined],
      ['@judge', 'a', 'NO'],
      ['@judge', '@done', 'YES'],
    ]);
    expect(view.timeline).toEqual([]);
  });
});
