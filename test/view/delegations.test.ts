import { describe, expect, it } from 'vitest';
import {
  Agent,
  Crew,
  type CrewOutput,
  ExecutionDocument,
  MemoryStore,
  type ModelResponse,
  type StatecrewEvent,
  Task,
} from '../../src/index.js';
import { createScriptedModel } from '../../src/models/scripted.js';
import { type RunView, renderRunView, toCrewView, type ViewNode } from '../../src/view/index.js';
import { tickingClock } from '../helpers.js';

/** A model turn that calls one tool. */
const call = (name: string, args: Record<string, unknown>, id = 'c1'): ModelResponse => ({
  text: '',
  toolCalls: [{ id, name, args }],
});

const HOSTILE = 'Find <script>alert(1)</script> & <img src=x onerror=alert(2)> facts';

/**
 * A writer that first names a coworker the crew does not have (refused), then delegates a task with
 * hostile text to the researcher, who replies; the writer answers with the reply.
 */
function otterCrew(store?: MemoryStore): Crew {
  const writer = new Agent({
    role: 'Writer',
    llm: createScriptedModel([
      call('ask_question', { coworker: 'Astronaut', question: 'Up there?', context: '' }),
      call('delegate_work', { coworker: 'Researcher', task: HOSTILE, context: 'for a kids book' }, 'c2'),
      'An article about otters',
    ]),
    allowDelegation: true,
  });
  const researcher = new Agent({
    role: 'Researcher',
    llm: createScriptedModel(['Otters hold hands </script><b>bold</b>']),
  });
  return new Crew({
    name: 'otters',
    agents: [writer, researcher],
    tasks: [new Task({ name: 'write', description: 'Write about otters', agent: writer })],
    ...(store === undefined ? {} : { store }),
  });
}

async function run(crew: Crew): Promise<{ out: CrewOutput; events: StatecrewEvent[] }> {
  const started = crew.run({ clock: tickingClock() });
  const events: StatecrewEvent[] = [];
  started.events$.subscribe((e) => events.push(e));
  return { out: await started.result, events };
}

const node = (view: RunView, id: string) => view.nodes.find((n) => n.id === id) as ViewNode;

/** The messages of a node as who → whom: what, and how it went. */
const exchanged = (view: RunView, id: string) =>
  (node(view, id).messages ?? []).map((m) => ({
    route: `${m.from} → ${m.to}`,
    kind: m.kind,
    task: m.task,
    answer: m.reply ?? m.code,
  }));

/** The agents' lanes with their times counted from the first span's start. */
function fromFirstSpan(view: RunView) {
  const origin = view.lanes?.spans[0]?.startMs ?? 0;
  return {
    agents: view.lanes?.agents,
    spans: view.lanes?.spans.map((s) => ({ ...s, startMs: s.startMs - origin })),
    messages: view.lanes?.messages.map((m) => ({ ...m, startMs: m.startMs - origin })),
  };
}

const EXPECTED = [
  { route: 'Writer → Astronaut', kind: 'ask', task: 'Up there?', answer: 'unknown_coworker' },
  {
    route: 'Writer → Researcher',
    kind: 'delegate',
    task: HOSTILE,
    answer: 'Otters hold hands </script><b>bold</b>',
  },
];

describe('the run view of agents delegating', () => {
  it('shows a finished run’s messages in the node, on the agents’ lanes, and the usage by agent', async () => {
    const crew = otterCrew();
    const { out, events } = await run(crew);
    const view = toCrewView(crew, { output: out, events });
    expect(exchanged(view, 'write')).toEqual(EXPECTED);
    const [refused, delegated] = node(view, 'write').messages ?? [];
    expect(refused?.error).toContain('the coworkers are: Researcher');
    expect(delegated).toMatchObject({ context: 'for a kids book', depth: 1 });
    // Asked while the node ran, answered after some time on the run's clock.
    const started = node(view, 'write').startedAt ?? 0;
    expect(delegated?.at).toBeGreaterThan(started);
    expect(delegated?.durationMs).toBeGreaterThan(0);
    expect(view.lanes?.agents).toEqual(['Writer', 'Researcher']);
    expect(view.lanes?.messages.map((m) => [m.from, m.to, m.state, m.index])).toEqual([
      ['Writer', 'Astronaut', 'refused', 0],
      ['Writer', 'Researcher', 'replied', 1],
    ]);
    expect(view.lanes?.spans.map((s) => [s.agent, s.node, s.status])).toEqual([
      ['Writer', 'write', 'completed'],
      ['Researcher', 'write', 'replied'],
    ]);
    expect(view.totals.agents?.Writer?.calls).toBe(3);
    expect(view.totals.agents?.Researcher?.calls).toBe(1);
    expect(node(view, 'write').usage?.calls).toBe(4);
    expect(JSON.parse(JSON.stringify(view))).toEqual(view);
  });

  it('shows a message still waiting for its reply in a run going on (its events alone)', async () => {
    const crew = otterCrew();
    const { events } = await run(crew);
    const asked = events.findIndex((e) => e.type === 'delegation');
    const view = toCrewView(crew, { events: events.slice(0, asked + 1) });
    expect(view.status).toBe('running');
    expect(exchanged(view, 'write')).toEqual([
      EXPECTED[0],
      { route: 'Writer → Researcher', kind: 'delegate', task: HOSTILE, answer: undefined },
    ]);
    expect(view.lanes?.messages.at(-1)?.state).toBe('waiting');
  });

  it('shows who asked whom and the reply from a result without its events (no times, no lanes)', async () => {
    const crew = otterCrew();
    const { out } = await run(crew);
    const view = toCrewView(crew, { output: out });
    expect(exchanged(view, 'write')).toEqual([EXPECTED[1], EXPECTED[0]]);
    expect(node(view, 'write').messages?.[0]?.context).toBe('for a kids book');
    expect(view.lanes).toBeUndefined();
    expect(view.totals.agents).toEqual(out.usage.agents);
  });

  it('draws a stored run’s messages as the live run’s, and loads a record written before they were kept', async () => {
    const store = new MemoryStore();
    const crew = otterCrew(store);
    const { out, events } = await run(crew);
    const live = toCrewView(crew, { output: out, events });
    const doc = await ExecutionDocument.fromStore(store, out.metadata.executionId);
    const stored = toCrewView(crew, JSON.parse(JSON.stringify(doc?.toJSON())));
    expect(exchanged(stored, 'write')).toEqual(EXPECTED);
    expect(node(stored, 'write').messages).toEqual(node(live, 'write').messages);
    // The same lanes: their times count from the stored run's start, a clock reading of its own.
    expect(fromFirstSpan(stored)).toEqual(fromFirstSpan(live));
    expect(stored.totals.agents).toEqual(live.totals.agents);
    // An older record: no delegations, no usage by agent.
    const data = doc?.toJSON();
    if (data === undefined) throw new Error('the run was not stored');
    const older = {
      ...data,
      results: data.results.map(({ delegations: _d, agentUsage: _a, ...result }) => result),
    };
    const view = toCrewView(crew, older);
    expect(node(view, 'write')).toMatchObject({ status: 'completed', output: 'An article about otters' });
    expect(node(view, 'write').messages).toBeUndefined();
    expect(view.lanes).toBeUndefined();
    expect(view.totals.agents).toEqual({ Writer: node(view, 'write').usage });
  });

  it('escapes a delegated task’s and a reply’s text everywhere on the page', async () => {
    const crew = otterCrew();
    const { out, events } = await run(crew);
    const html = renderRunView(toCrewView(crew, { output: out, events }));
    const data = /<script type="application\/json" id="run-data">([\s\S]*?)<\/script>/.exec(html)?.[1] ?? '';
    const outside = html.replace(data, '');
    for (const raw of ['<script>alert', '<img src=x', '<b>bold']) expect(html).not.toContain(raw);
    expect(html.match(/<script/g)).toHaveLength(2);
    expect(data).not.toMatch(/[<>]/);
    // The lanes name both agents and tell the message in words, escaped.
    expect(outside).toContain('data-from="Writer" data-to="Researcher"');
    expect(outside).toContain(
      'Writer → Researcher: delegated &quot;Find &lt;script&gt;alert(1)&lt;/script&gt;',
    );
    expect(outside).toContain('<dl class="totals agent-totals" aria-label="Usage by agent">');
  });

  it('draws a chain of hand-overs: A → B → C, and C → D refused for depth, each in the lane of who asked', async () => {
    const chainModel = (me: string, next?: string) =>
      createScriptedModel([
        ...(next === undefined
          ? []
          : [call('delegate_work', { coworker: next, task: `from ${me}`, context: '' })]),
        `${me} done`,
      ]);
    const agents = ['A', 'B', 'C', 'D'].map(
      (role, i, roles) => new Agent({ role, llm: chainModel(role, roles[i + 1]), allowDelegation: true }),
    );
    const crew = new Crew({
      agents,
      tasks: [new Task({ name: 't', description: 'Work', agent: agents[0] as Agent })],
    });
    const { out, events } = await run(crew);
    const view = toCrewView(crew, { output: out, events });
    expect(exchanged(view, 't')).toEqual([
      { route: 'A → B', kind: 'delegate', task: 'from A', answer: 'B done' },
      { route: 'B → C', kind: 'delegate', task: 'from B', answer: 'C done' },
      { route: 'C → D', kind: 'delegate', task: 'from C', answer: 'delegation_depth' },
    ]);
    expect(node(view, 't').messages?.map((m) => m.depth)).toEqual([1, 2, undefined]);
    expect(view.lanes?.agents).toEqual(['A', 'B', 'C']);
    expect(view.lanes?.messages.map((m) => m.state)).toEqual(['replied', 'replied', 'refused']);
  });

  it('keeps a hierarchical manager’s allocations on its node and edges, apart from the worker’s messages', async () => {
    const writer = new Agent({
      role: 'Writer',
      llm: createScriptedModel([
        call('delegate_work', { coworker: 'Editor', task: 'Tighten this draft', context: 'draft text' }),
        'Final text',
      ]),
      allowDelegation: true,
    });
    const editor = new Agent({ role: 'Editor', llm: createScriptedModel(['Tightened.']) });
    const crew = new Crew({
      agents: [writer, editor],
      tasks: [new Task({ name: 'piece', description: 'Write the piece' })],
      process: 'hierarchical',
      manager: { allocate: () => 'Writer', synthesize: (_goal, outputs) => outputs.join('\n') },
    });
    const { out, events } = await run(crew);
    const view = toCrewView(crew, { output: out, events });
    expect(node(view, '@manager').notes).toEqual(['piece → Writer']);
    expect(view.edges.find((e) => e.from === '@manager')?.label).toBe('allocates → Writer');
    expect(exchanged(view, 'piece')).toEqual([
      { route: 'Writer → Editor', kind: 'delegate', task: 'Tighten this draft', answer: 'Tightened.' },
    ]);
    expect(view.lanes?.agents).toEqual(['Writer', 'Editor']);
  });
});
