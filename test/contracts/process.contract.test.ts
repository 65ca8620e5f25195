import { describe, expect, it } from 'vitest';
import {
  Agent,
  Crew,
  type CrewOutput,
  ModelResponseError,
  type ProcessKind,
  type StatecrewEvent,
  Task,
} from '../../src/index.js';
import { blockedByFailure } from '../../src/runtime/crew/failure-reach.js';
import { planCrew } from '../../src/runtime/crew/plan.js';
import type { ProcessShape } from '../../src/runtime/process-shape.js';
import { processes } from '../../src/runtime/processes/registry.js';
import { createScriptedModel } from '../../src/testing.js';

/** Every registered process: a new process is held to the contract by being registered. */
const PROCESSES = Object.keys(processes) as ProcessKind[];

/** The same three scripted tasks for every process; `failing` names the tasks whose model fails. */
function crewFor(process: ProcessKind, failing: readonly string[], count = 3) {
  const llm = createScriptedModel((r) => {
    const name = r.prompt.split('Task: ')[1] ?? '';
    if (name === 'fatal') return new ModelResponseError('Worker', 42);
    return failing.includes(name)
      ? new Error(`${name} failed`)
      : { text: `out ${name}`, usage: { inputTokens: 3, outputTokens: 2 } };
  });
  const worker = new Agent({ role: 'Worker', llm, maxRetries: 0 });
  const tasks = ['a', 'b', 'c', 'fatal']
    .filter((name) => name !== 'fatal' || failing.includes('fatal'))
    .slice(0, count)
    .map((name) => new Task({ name, description: name, agent: worker }));
  const crew = new Crew({
    tasks,
    agents: [worker],
    process,
    manager: { allocate: () => 'Worker', synthesize: (_goal, outputs) => outputs.join('|') },
    loop: { condition: 'good enough', judge: () => 'YES', maxIterations: 2 },
  });
  return crew;
}

async function runWithEvents(crew: Crew): Promise<{ out: CrewOutput; events: StatecrewEvent[] }> {
  const run = crew.run();
  const events: StatecrewEvent[] = [];
  run.events$.subscribe((e) => events.push(e));
  return { out: await run.result, events };
}

const populated = (out: CrewOutput) =>
  Object.entries(out)
    .filter(([, v]) => v !== undefined)
    .map(([k]) => k)
    .sort();

describe.each(PROCESSES)('process contract: %s', (process) => {
  it('fills the same fields as every other process', async () => {
    const { out } = await runWithEvents(crewFor(process, []));
    const { out: reference } = await runWithEvents(crewFor('sequential', []));
    expect(populated(out)).toEqual(populated(reference));
    expect(Object.keys(out.metadata)).toEqual(
      expect.arrayContaining(['executionId', 'process', 'leaves', 'blocked']),
    );
    expect(out.metadata.process).toBe(process);
    expect(typeof out.summary).toBe('string');
    expect(out.totalTimeMs).toBeGreaterThanOrEqual(0);
  });

  it('lists nodes in completion order with one log entry per settled node and usage summed over nodes', async () => {
    const { out, events } = await runWithEvents(crewFor(process, ['b']));
    const settledOrder = events
      .filter((e) => e.type === 'node.completed' || (e.type === 'node.failed' && !e.willRetry))
      .map((e) => ('nodeId' in e ? e.nodeId : ''));
    expect(out.nodes.map((n) => n.nodeId)).toEqual(settledOrder);
    expect(out.executionLog.map((e) => [e.nodeId, e.status])).toEqual(
      out.nodes.map((n) => [n.nodeId, n.status]),
    );
    const nodeTokens = out.nodes.reduce((sum, n) => sum + n.usage.totalTokens, 0);
    const nodeCalls = out.nodes.reduce((sum, n) => sum + n.usage.calls, 0);
    const judgeCalls = events.filter((e) => e.type === 'judge.verdict').length;
    expect(out.usage.totalTokens).toBe(nodeTokens);
    expect(out.usage.calls).toBe(nodeCalls + judgeCalls);
  });

  it('is completed with no failures, even for an empty crew', async () => {
    expect((await crewFor(process, []).kickoff()).status).toBe('completed');
    const empty = await crewFor(process, [], 0).kickoff();
    expect(empty.status).toBe('completed');
    expect(empty.nodes).toEqual([]);
    expect(empty.tasksOutput).toEqual([]);
  });

  it('is failed with no successes', async () => {
    const out = await crewFor(process, ['a', 'b', 'c']).kickoff();
    expect(out.status).toBe('failed');
    expect(out.errors.a ?? out.errors['a#1']).toBe('a failed');
  });

  it('is partial with both', async () => {
    const out = await crewFor(process, ['b']).kickoff();
    expect(out.status).toBe('partial');
    expect(Object.values(out.errors)).toEqual(['b failed']);
    expect(out.tasksOutput.length).toBeGreaterThan(0);
  });
});

/** A node id without a loop's iteration suffix. */
const taskOf = (nodeId: string) => nodeId.replace(/#\d+$/, '');

describe('one result contract across processes', () => {
  it('gives the same nodes fields, statuses and failures for the same workload in every process', async () => {
    const seen = new Map<ProcessKind, unknown>();
    for (const process of PROCESSES) {
      const out = await crewFor(process, ['a', 'fatal'], 4).kickoff();
      const byTask = Object.fromEntries(out.nodes.map((n) => [taskOf(n.nodeId), n]));
      seen.set(process, {
        fields: out.nodes.map((n) => Object.keys(n).sort()),
        statuses: Object.fromEntries(
          ['a', 'fatal'].map((t) => [
            t,
            byTask[t]?.status ?? (out.metadata.blocked.map(taskOf).includes(t) ? 'blocked' : 'missing'),
          ]),
        ),
        failures: Object.fromEntries(Object.entries(out.failures).map(([id, f]) => [taskOf(id), f])),
        codes: Object.fromEntries(out.nodes.map((n) => [taskOf(n.nodeId), n.errorCode])),
      });
    }
    const expected = {
      failures: {
        a: { message: 'a failed', retryable: true },
        fatal: {
          message: new ModelResponseError('Worker', 42).message,
          code: 'invalid_model_response',
          retryable: false,
          details: { agent: 'Worker' },
        },
      },
    };
    for (const process of ['parallel', 'graph'] as const) {
      expect(seen.get(process), process).toMatchObject({
        ...expected,
        statuses: { a: 'failed', fatal: 'failed' },
        codes: { a: undefined, fatal: 'invalid_model_response', b: undefined, c: undefined },
      });
    }
    // The chain processes stop at the first failure: a fails, the rest (fatal among them) is blocked.
    for (const process of ['sequential', 'hierarchical', 'loop'] as const) {
      expect(seen.get(process), process).toMatchObject({
        failures: { a: expected.failures.a },
        statuses: { a: 'failed', fatal: 'blocked' },
        codes: { a: undefined },
      });
    }
    const fieldSets = [...seen.values()].map((v) => (v as { fields: string[][] }).fields[0]);
    for (const fields of fieldSets) expect(fields).toEqual(fieldSets[0]);
    const failed = await crewFor('graph', ['fatal'], 4).kickoff();
    expect(failed.nodes.find((n) => n.nodeId === 'fatal')).toMatchObject({
      status: 'failed',
      errorCode: 'invalid_model_response',
    });
    expect(JSON.parse(JSON.stringify(failed.failures))).toEqual({ fatal: expected.failures.fatal });
  });
});

/** The shape `crewFor(process, [], count)` gets from its process, and the crew's task ids. */
function shapeFor(process: ProcessKind, count: number): { shape: ProcessShape; ids: string[]; crew: Crew } {
  const crew = crewFor(process, [], count);
  const plan = planCrew(crew, {});
  return { shape: processes[process].shape(plan), ids: plan.tasks.map((t) => t.nodeId), crew };
}

/** Whether a run's node id is a run of the task `id` (a repeating process's: `<id>#<iteration>`). */
const isRunOf = (runId: string, id: string, repeats: boolean) =>
  repeats ? new RegExp(`^${id}#\\d+$`).test(runId) : runId === id;

describe.each(PROCESSES)('process shape contract: %s', (process) => {
  it.each([0, 1, 3])('draws a well-formed picture of %i tasks', (count) => {
    const { shape, ids, crew } = shapeFor(process, count);
    const own = shape.nodes.map((n) => n.id);
    expect(new Set(own).size).toBe(own.length);
    for (const id of own) expect(id.startsWith('@') && !ids.includes(id)).toBe(true);
    const known = new Set([...ids, ...own]);
    for (const edge of shape.edges) {
      expect(known.has(edge.from), `${edge.from} → ${edge.to}`).toBe(true);
      expect(known.has(edge.to), `${edge.from} → ${edge.to}`).toBe(true);
    }
    for (const end of shape.ends) expect(known.has(end), end).toBe(true);
    // Exactly the nodes no edge leaves end the run (every node of a picture with tasks is on an edge).
    if (count > 0) {
      const leaving = new Set(shape.edges.map((e) => e.from));
      expect([...shape.ends].sort()).toEqual([...known].filter((id) => !leaving.has(id)).sort());
    }
    // The Mermaid flowchart draws the shape: a line per task, per own node, per edge.
    const mermaid = crew.toMermaid().split('\n');
    expect(mermaid.filter((line) => line.includes('-->'))).toHaveLength(shape.edges.length);
    for (const node of shape.nodes) expect(mermaid.some((line) => line.includes(`${node.label}`))).toBe(true);
    expect(crew.processShape()).toEqual(shape);
  });

  it('blocks on a failure what its shape says, and names runs as its shape says', async () => {
    const { shape, ids } = shapeFor(process, 3);
    const out = await crewFor(process, ['a']).kickoff();
    const blocked = out.metadata.blocked.map((id) => taskOf(id));
    expect(blocked).toEqual(blockedByFailure(planCrew(crewFor(process, []), {}), shape.blocksOnFailure).a);
    const runIds = [...out.nodes.map((n) => n.nodeId), ...out.metadata.blocked];
    for (const runId of runIds) {
      const owners = [
        ...ids.filter((id) => isRunOf(runId, id, shape.repeats)),
        ...shape.nodes.filter((n) => n.runs?.test(runId) === true).map((n) => n.id),
      ];
      expect(owners, runId).toHaveLength(1);
    }
  });

  it('says where its output comes from', async () => {
    const { shape } = shapeFor(process, 3);
    const out = await crewFor(process, []).kickoff();
    if (shape.synthesisLeaf === undefined) {
      for (const leaf of out.metadata.leaves) expect(out.nodes.map((n) => n.nodeId)).toContain(leaf);
    } else {
      expect(out.metadata.leaves).toEqual([shape.synthesisLeaf]);
      expect(out.raw).toBe('out a|out b|out c');
    }
  });
});
