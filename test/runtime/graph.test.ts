import { describe, expect, it } from 'vitest';
import { Agent, Crew, CycleError, type StatecrewEvent, Task } from '../../src/index.js';
import { createScriptedModel } from '../../src/testing.js';
import { agent, echoModel, gatedModel } from '../helpers.js';

function graphOf(
  edges: Record<string, string[]>,
  llm = echoModel(),
  options: { maxConcurrency?: number } = {},
) {
  const worker = agent('W', llm);
  const tasks = new Map(
    Object.keys(edges).map((name) => [name, new Task({ name, description: name, agent: worker })]),
  );
  for (const [name, deps] of Object.entries(edges)) {
    (tasks.get(name) as Task).context = deps.map((d) => tasks.get(d) as Task);
  }
  return { llm, tasks, crew: new Crew({ tasks: [...tasks.values()], process: 'graph', ...options }) };
}

async function eventsOf(crew: Crew) {
  const run = crew.run();
  const events: StatecrewEvent[] = [];
  run.events$.subscribe((e) => events.push(e));
  const out = await run.result;
  const at = (type: string, nodeId: string) =>
    events.findIndex((e) => e.type === type && 'nodeId' in e && e.nodeId === nodeId);
  return { out, events, at };
}

describe('graph process', () => {
  it('runs a diamond in dependency order: a before b and c, d after both, reading them in its list order', async () => {
    const { crew, llm } = graphOf({ a: [], b: ['a'], c: ['a'], d: ['c', 'b'] });
    const { out, at } = await eventsOf(crew);
    expect(at('node.started', 'b')).toBeGreaterThan(at('node.completed', 'a'));
    expect(at('node.started', 'c')).toBeGreaterThan(at('node.completed', 'a'));
    expect(at('node.started', 'd')).toBeGreaterThan(
      Math.max(at('node.completed', 'b'), at('node.completed', 'c')),
    );
    expect(llm.calls.find((c) => c.prompt.endsWith('Task: d'))?.context).toBe('W: c\nW: b');
    expect(out.output).toBe('W: d');
    expect(out.metadata.leaves).toEqual(['d']);
  });

  it('gives a dict output keyed by node id for a fan-out with three leaves', async () => {
    const { crew } = graphOf({ root: [], x: ['root'], y: ['root'], z: ['root'] });
    const out = await crew.kickoff();
    expect(out.output).toEqual({ x: 'W: x', y: 'W: y', z: 'W: z' });
    expect(out.metadata.leaves).toEqual(['x', 'y', 'z']);
    expect(out.raw).toBe('W: z');
  });

  it('blocks the descendants of a failed task and finishes the independent branch', async () => {
    const llm = createScriptedModel((r) =>
      r.prompt.endsWith('Task: b') ? new Error('b broke') : `ok ${r.prompt.slice(-1)}`,
    );
    const worker = new Agent({ role: 'W', llm, maxRetries: 0 });
    const a = new Task({ name: 'a', description: 'a', agent: worker });
    const b = new Task({ name: 'b', description: 'b', agent: worker, context: [a] });
    const c = new Task({ name: 'c', description: 'c', agent: worker, context: [b] });
    const d = new Task({ name: 'd', description: 'd', agent: worker });
    const { out, events } = await eventsOf(new Crew({ tasks: [a, b, c, d], process: 'graph' }));
    expect(out.status).toBe('partial');
    expect(out.metadata.blocked).toEqual(['c']);
    expect(events.find((e) => e.type === 'node.blocked')).toMatchObject({ nodeId: 'c', reason: 'b' });
    expect(llm.calls.some((call) => call.prompt.endsWith('Task: c'))).toBe(false);
    expect(out.nodeResults).toEqual({ a: 'ok a', d: 'ok d' });
    expect(out.errors).toEqual({ b: 'b broke' });
    expect(out.output).toBe('ok d');
    expect(out.metadata.leaves).toEqual(['d']);
  });

  it.each([
    [{ a: ['b'], b: ['a'] }, 'a → b → a'],
    [{ x: [], a: ['c'], b: ['a'], c: ['b'] }, 'a → b → c → a'],
    [{ a: [], s: ['s'] }, 's → s'],
  ])('rejects a cycle before any model call: %o', async (edges, path) => {
    const { crew, llm } = graphOf(edges);
    const error = await crew.kickoff().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CycleError);
    expect((error as Error).message).toBe(`Tasks depend on each other in a cycle: ${path} (cycle)`);
    expect(llm.calls).toHaveLength(0);
  });

  it.each([1, 2, 8])('never has more than %i task(s) in flight', async (cap) => {
    const edges: Record<string, string[]> = { start: [] };
    for (let i = 0; i < 20; i += 1) edges[`m${i}`] = ['start'];
    edges.join = Object.keys(edges).filter((k) => k !== 'start');
    const { crew, llm } = graphOf(edges, echoModel(), { maxConcurrency: cap });
    const out = await crew.kickoff();
    expect(out.status).toBe('completed');
    expect(llm.peakInFlight).toBe(cap);
    expect(llm.calls).toHaveLength(22);
  });

  it('runs a task listed before its dependency after it, and takes raw from the leaf', async () => {
    const { crew, llm } = graphOf({ late: ['early'], early: [] });
    const out = await crew.kickoff();
    expect(llm.calls.map((c) => c.prompt.split('Task: ')[1])).toEqual(['early', 'late']);
    expect(out.output).toBe('W: late');
    expect(out.raw).toBe('W: late');
  });

  it('starts a task as soon as its last dependency completes, not in waves', async () => {
    const gate = gatedModel();
    const { crew } = graphOf({ slow: [], fast: [], next: ['fast'] }, gate.model);
    const done = crew.kickoff();
    await gate.whenCalled('fast');
    gate.release('fast');
    await gate.whenCalled('next');
    expect(gate.started).toEqual(['slow', 'fast', 'next']);
    gate.release('next');
    gate.release('slow');
    const out = await done;
    expect(out.nodes.map((n) => n.nodeId)).toEqual(['fast', 'next', 'slow']);
  });
});
