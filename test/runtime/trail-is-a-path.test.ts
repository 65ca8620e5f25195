import { describe, expect, it } from 'vitest';
import { Agent, Crew, type CrewPath, type StatecrewEvent, Task } from '../../src/index.js';
import { createScriptedModel } from '../../src/testing.js';

/**
 * The machine that is proven is the machine that runs: a real run's trail — what its events say
 * happened, in order — is one of the paths `crew.analyze()` lists, for every process whose
 * supervisor is a chain (sequential, hierarchical, loop), in runs that complete and runs that fail.
 * A graph crew's supervisor is one state whose order is its scheduler's, over the crew's DAG: its
 * runs are checked against the DAG analyze() reads (dependencies first, a failure blocking what it says).
 */

/** A worker whose model fails every call for the tasks in `failing`, and answers `ok` otherwise. */
function worker(role: string, failing: readonly string[] = []): Agent {
  const llm = createScriptedModel((request) => {
    if (failing.some((name) => request.prompt.includes(`Task: ${name}`))) throw new Error('refused');
    return 'ok';
  });
  return new Agent({ role, llm, maxRetries: 0 });
}

const tasksFor = (owner: Agent, names: readonly string[]) =>
  names.map((name) => new Task({ name, description: name, expectedOutput: 'text', agent: owner }));

interface Trail {
  status: string;
  raw: string;
  events: StatecrewEvent[];
}

async function runTrail(crew: Crew): Promise<Trail> {
  const run = crew.run();
  const events: StatecrewEvent[] = [];
  run.events$.subscribe((event) => events.push(event));
  const result = await run.result;
  return { status: result.status, raw: result.raw, events };
}

/** A settled task run as a picture step: the state it was in and the event that left it. */
function settled(event: StatecrewEvent, state: (nodeId: string) => string): [string, string] | undefined {
  if (event.type === 'node.completed') return [state(event.nodeId), 'SUCCEED'];
  if (event.type === 'node.failed' && !event.willRetry) return [state(event.nodeId), 'FAIL'];
  return undefined;
}

/** The path a run took, read from its events: each step's state and event, then how it ended. */
function pathOf(
  trail: Trail,
  step: (event: StatecrewEvent) => [string, string] | undefined,
  end?: [string, string],
) {
  const steps = trail.events.map(step).filter((s): s is [string, string] => s !== undefined);
  if (end !== undefined) steps.push(end);
  const outcome: CrewPath['outcome'] = trail.status === 'completed' ? 'completed' : 'failed';
  return {
    states: [...steps.map(([state]) => state), outcome],
    events: steps.map(([, event]) => event),
    outcome,
  };
}

const sequentialPath = (trail: Trail) => pathOf(trail, (event) => settled(event, (id) => id));

function hierarchicalPath(trail: Trail, synthesis: string) {
  const step = (event: StatecrewEvent): [string, string] | undefined =>
    event.type === 'delegation' && event.kind === 'allocate'
      ? [`allocate ${event.task}`, `ALLOCATE.${event.role}`]
      : settled(event, (id) => id);
  // The manager's synthesis is the run's output when it ran: the last step of a completed run.
  return pathOf(trail, step, trail.raw === synthesis ? ['synthesize', 'SUCCEED'] : undefined);
}

function loopPath(trail: Trail) {
  const step = (event: StatecrewEvent): [string, string] | undefined => {
    if (event.type === 'judge.verdict') return [`judge ${event.iteration}`, event.verdict.toUpperCase()];
    return settled(event, (id) => {
      const [task, iteration] = id.split('#');
      return `${iteration}/${task}`;
    });
  };
  return pathOf(trail, step);
}

/** Whether `path` is a walk through `crew.toMachine()`: each event a transition of the state before it. */
function walksThrough(crew: Crew, path: CrewPath): boolean {
  const { initial, states } = crew.toMachine().config as {
    initial: string;
    states: Record<string, { type?: string; on?: Record<string, string> }>;
  };
  if (path.states[0] !== initial) return false;
  return (
    path.events.every((event, i) => states[path.states[i] as string]?.on?.[event] === path.states[i + 1]) &&
    states[path.states.at(-1) as string]?.type === 'final'
  );
}

/** `path`, one step longer: the paths a crew lists never contain both. */
const oneMoreStep = (path: CrewPath): CrewPath => ({
  ...path,
  states: [...path.states.slice(0, -1), 'extra', ...path.states.slice(-1)],
  events: [...path.events, 'SUCCEED'],
});

describe('a run’s trail is a path analyze() listed', () => {
  it('sequential: every task completing, and a failure at each task', async () => {
    const names = ['research', 'draft', 'edit'];
    for (const failing of [[], ['research'], ['draft'], ['edit']]) {
      const crew = new Crew({ tasks: tasksFor(worker('Writer', failing), names) });
      const path = sequentialPath(await runTrail(crew));
      const { paths } = crew.analyze();
      expect(path.outcome).toBe(failing.length === 0 ? 'completed' : 'failed');
      expect(paths).toContainEqual(path);
      expect(paths).not.toContainEqual(oneMoreStep(path));
    }
  });

  it('hierarchical: the manager’s allocations, a worker’s failure, and the synthesis', async () => {
    const names = ['gather', 'write'];
    const scenarios = [
      { failing: [], allocate: (task: string) => (task === 'gather' ? 'Researcher' : 'Writer') },
      { failing: [], allocate: () => 'Writer' },
      { failing: ['write'], allocate: () => 'Researcher' },
      { failing: ['gather'], allocate: () => 'Writer' },
    ];
    for (const { failing, allocate } of scenarios) {
      const researcher = worker('Researcher', failing);
      const writer = worker('Writer', failing);
      const crew = new Crew({
        agents: [researcher, writer],
        tasks: tasksFor(researcher, names),
        process: 'hierarchical',
        manager: { allocate: (description) => allocate(description), synthesize: () => 'the synthesis' },
      });
      const trail = await runTrail(crew);
      const path = hierarchicalPath(trail, 'the synthesis');
      expect(path.events.filter((e) => e.startsWith('ALLOCATE.'))).toHaveLength(
        failing[0] === 'gather' ? 1 : 2,
      );
      // The run walks the picture's transition for the worker the manager chose; analyze() lists each
      // way to end once, an allocation being a choice of worker, not of path (ALLOCATE).
      expect(walksThrough(crew, path)).toBe(true);
      expect(walksThrough(crew, oneMoreStep(path))).toBe(false);
      const listed = {
        ...path,
        events: path.events.map((e) => (e.startsWith('ALLOCATE.') ? 'ALLOCATE' : e)),
      };
      const { paths } = crew.analyze();
      expect(paths).toContainEqual(listed);
      expect(paths).not.toContainEqual(oneMoreStep(listed));
    }
  });

  it('loop: verdicts over iterations, the bound, and a failure in a later iteration', async () => {
    const scenarios = [
      { verdicts: ['YES'], failing: [] },
      { verdicts: ['NO', 'YES'], failing: [] },
      { verdicts: ['NO', 'NO', 'NO'], failing: [] },
      { verdicts: ['NO'], failing: ['review'], failFrom: 2 },
    ];
    for (const { verdicts, failing, failFrom } of scenarios) {
      let iteration = 0;
      const calls = new Map<string, number>();
      const llm = createScriptedModel((request) => {
        const name = failing.find((n) => request.prompt.includes(`Task: ${n}`));
        if (name !== undefined) {
          const count = (calls.get(name) ?? 0) + 1;
          calls.set(name, count);
          if (count >= (failFrom ?? 1)) throw new Error('refused');
        }
        return 'ok';
      });
      const owner = new Agent({ role: 'Writer', llm, maxRetries: 0 });
      const crew = new Crew({
        tasks: tasksFor(owner, ['draft', 'review']),
        process: 'loop',
        loop: {
          condition: 'the draft is good',
          judge: () => verdicts[iteration++] ?? 'NO',
          maxIterations: 3,
        },
      });
      const path = loopPath(await runTrail(crew));
      const { paths } = crew.analyze();
      expect(paths).toContainEqual(path);
      expect(paths).not.toContainEqual(oneMoreStep(path));
      expect(walksThrough(crew, path)).toBe(true);
    }
  });

  it('graph: tasks settle after their dependencies, and a failure blocks what analyze() says', async () => {
    const owner = (failing: readonly string[]) => worker('Analyst', failing);
    for (const failing of [[], ['b'], ['c'], ['a']]) {
      const agentOf = owner(failing);
      const [a, b, c, d, e] = tasksFor(agentOf, ['a', 'b', 'c', 'd', 'e']) as [Task, Task, Task, Task, Task];
      b.context = [a];
      c.context = [a];
      d.context = [b];
      e.context = [c, d];
      const crew = new Crew({ tasks: [e, d, c, b, a], process: 'graph' });
      const trail = await runTrail(crew);
      const analysis = crew.analyze();
      const settledOrder = trail.events.flatMap((ev) => (ev.type === 'node.completed' ? [ev.nodeId] : []));
      const blocked = trail.events.flatMap((ev) => (ev.type === 'node.blocked' ? [ev.nodeId] : []));
      for (const task of [a, b, c, d, e]) {
        const at = settledOrder.indexOf(task.name ?? '');
        if (at < 0) continue;
        for (const dep of task.context ?? []) expect(settledOrder.indexOf(dep.name ?? '')).toBeLessThan(at);
      }
      const expected = failing.flatMap((id) => analysis.blockedOnFailure[id] ?? []);
      expect(blocked.sort()).toEqual([...new Set(expected)].sort());
      expect(settledOrder.length + blocked.length + failing.length).toBe(5);
    }
  });
});
