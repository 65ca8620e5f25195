import { getShortestPaths, getSimplePaths } from '@xstate/graph';
import { createMachine } from 'xstate';
import { findCycle } from './dag.js';
import type { CrewPlan } from './plan.js';
import type { ProcessKind } from './process.js';

/** What the crew's pictures need: its process, plan, workers and loop bound. */
export interface CrewShape {
  process: ProcessKind;
  plan: CrewPlan;
  maxIterations: number;
}

type StateConfig = {
  type?: 'final';
  description?: string;
  on?: Record<string, string>;
  initial?: string;
  states?: Record<string, StateConfig>;
};

function chainStates(
  ids: readonly string[],
  prefix: string,
  after: string,
  states: Record<string, StateConfig>,
) {
  ids.forEach((id, i) => {
    states[`${prefix}${id}`] = {
      description: `Runs task ${id}`,
      on: { SUCCEED: i + 1 < ids.length ? `${prefix}${ids[i + 1]}` : after, FAIL: 'failed' },
    };
  });
}

/**
 * A crew's control flow as a plain XState machine (no functions: JSON-safe, opens in Stately):
 * a state per task with SUCCEED and FAIL events for the chain processes; manager choices
 * (`ALLOCATE.<role>`) for hierarchical; a judge's YES/NO per iteration for loop; a region per task for
 * parallel and graph.
 */
export function crewToMachine(crew: CrewShape) {
  const ids = crew.plan.tasks.map((t) => t.nodeId);
  const states: Record<string, StateConfig> = { completed: { type: 'final' }, failed: { type: 'final' } };
  let initial = ids.length === 0 ? 'completed' : (ids[0] as string);
  switch (crew.process) {
    case 'sequential':
      chainStates(ids, '', 'completed', states);
      break;
    case 'hierarchical': {
      const roles = crew.plan.agents.map((a) => a.role);
      initial = ids.length === 0 ? 'synthesize' : `allocate ${ids[0]}`;
      ids.forEach((id, i) => {
        states[`allocate ${id}`] = {
          description: `The manager allocates ${id}`,
          on: { ...Object.fromEntries(roles.map((r) => [`ALLOCATE.${r}`, id])), FAIL: 'failed' },
        };
        states[id] = {
          on: { SUCCEED: i + 1 < ids.length ? `allocate ${ids[i + 1]}` : 'synthesize', FAIL: 'failed' },
        };
      });
      states.synthesize = {
        description: 'The manager synthesizes',
        on: { SUCCEED: 'completed', FAIL: 'failed' },
      };
      break;
    }
    case 'loop':
      if (ids.length === 0) break;
      initial = `1/${ids[0]}`;
      for (let it = 1; it <= crew.maxIterations; it += 1) {
        chainStates(ids, `${it}/`, `judge ${it}`, states);
        states[`judge ${it}`] = {
          description: `The judge reads iteration ${it}`,
          on: {
            YES: 'completed',
            NO: it < crew.maxIterations ? `${it + 1}/${ids[0]}` : 'completed',
            FAIL: 'failed',
          },
        };
      }
      break;
    case 'parallel':
    case 'graph': {
      const regions: Record<string, StateConfig> = {};
      for (const id of ids) {
        regions[id] = {
          initial: 'waiting',
          states: {
            waiting: { on: { [`START.${id}`]: 'running', [`BLOCK.${id}`]: 'blocked' } },
            running: { on: { [`SUCCEED.${id}`]: 'completed', [`FAIL.${id}`]: 'failed' } },
            completed: { type: 'final' },
            failed: { type: 'final' },
            blocked: { type: 'final' },
          },
        };
      }
      return createMachine({ id: crew.process, type: 'parallel', states: regions });
    }
  }
  return createMachine({ id: crew.process, initial, states });
}

const quote = (text: string) => `"${text.replace(/"/g, '#quot;')}"`;

/** A Mermaid flowchart of a crew: its tasks and the order or dependencies they run in. */
export function crewToMermaid(crew: CrewShape): string {
  const { tasks } = crew.plan;
  const id = new Map(tasks.map((t, i) => [t.nodeId, `t${i}`]));
  const lines = ['flowchart TD', ...tasks.map((t) => `  ${id.get(t.nodeId)}[${quote(t.nodeId)}]`)];
  const chain = () => {
    for (let i = 1; i < tasks.length; i += 1) lines.push(`  t${i - 1} --> t${i}`);
  };
  switch (crew.process) {
    case 'sequential':
      chain();
      break;
    case 'hierarchical':
      lines.push(`  manager{{${quote('manager')}}}`);
      for (const t of tasks) lines.push(`  manager -- allocates --> ${id.get(t.nodeId)}`);
      lines.push(`  synthesis[${quote('synthesis')}]`);
      for (const t of tasks) lines.push(`  ${id.get(t.nodeId)} --> synthesis`);
      break;
    case 'loop':
      chain();
      lines.push(`  judge{${quote('judge')}}`);
      if (tasks.length > 0)
        lines.push(
          `  t${tasks.length - 1} --> judge`,
          '  judge -- NO --> t0',
          '  judge -- YES --> done(((done)))',
        );
      break;
    case 'parallel':
      lines.push('  start(((start)))');
      for (const t of tasks) lines.push(`  start --> ${id.get(t.nodeId)}`);
      break;
    case 'graph':
      for (const t of tasks)
        for (const dep of t.contextIds ?? []) lines.push(`  ${id.get(dep)} --> ${id.get(t.nodeId)}`);
      break;
  }
  return lines.join('\n');
}

/** What `crew.analyze()` finds. */
export interface CrewAnalysis {
  process: ProcessKind;
  /** Always true for a crew without a dependency cycle: every process is bounded. */
  terminates: boolean;
  /** A dependency cycle (graph), as node ids along it; undefined when there is none. */
  cycle: string[] | undefined;
  /** Tasks that can never run: those on or after a dependency cycle (graph). */
  unreachable: string[];
  /** The longest chain of tasks that must run one after another. */
  criticalPath: string[];
  /** For each task, the tasks that would be blocked if it failed for good. */
  blockedOnFailure: Record<string, string[]>;
  /**
   * Ways a run can end, walked with `@xstate/graph` on `toMachine()`: every simple path for the chain
   * processes, one shortest path per reachable state for hierarchical (allocation choices without
   * their combinations). Each lists the states it passes and its events.
   */
  paths: CrewPath[];
}

/** One way through a crew's control flow. */
export interface CrewPath {
  states: string[];
  events: string[];
  outcome: 'completed' | 'failed';
}

function eventsOf(config: StateConfig, into: Set<string> = new Set()): Set<string> {
  for (const type of Object.keys(config.on ?? {})) into.add(type);
  for (const inner of Object.values(config.states ?? {})) eventsOf(inner, into);
  return into;
}

/** The paths of a chain crew's machine that end in `completed` or `failed`. */
function machinePaths(crew: CrewShape): CrewPath[] {
  const machine = crewToMachine(crew);
  const events = [...eventsOf(machine.config as StateConfig)].map((type) => ({ type }));
  const options = { events, toState: (s: { status: string }) => s.status === 'done' };
  const found =
    crew.process === 'hierarchical' ? getShortestPaths(machine, options) : getSimplePaths(machine, options);
  return found.map((path) => ({
    states: path.steps.map((step) => String(step.state.value)),
    events: path.steps.slice(1).map((step) => step.event.type),
    outcome: path.state.value === 'failed' ? 'failed' : 'completed',
  }));
}

/** Analyses a crew's structure: cycles and what they make unreachable, the critical path, and failure paths. */
export function analyzeCrew(crew: CrewShape): CrewAnalysis {
  const { tasks } = crew.plan;
  const ids = tasks.map((t) => t.nodeId);
  const blockedOnFailure: Record<string, string[]> = {};
  if (crew.process !== 'graph') {
    const chained = crew.process !== 'parallel';
    ids.forEach((id, i) => {
      blockedOnFailure[id] = chained ? ids.slice(i + 1) : [];
    });
    const paths: CrewPath[] = chained
      ? machinePaths(crew)
      : [{ states: ids, events: ids.map((id) => `SUCCEED.${id}`), outcome: 'completed' }];
    return {
      process: crew.process,
      terminates: true,
      cycle: undefined,
      unreachable: [],
      criticalPath: chained ? ids : ids.slice(0, 1),
      blockedOnFailure,
      paths,
    };
  }
  return analyzeGraph(crew, ids);
}

function analyzeGraph(crew: CrewShape, ids: string[]): CrewAnalysis {
  const { tasks } = crew.plan;
  const dependents = new Map<string, string[]>(ids.map((id) => [id, []]));
  for (const t of tasks) for (const dep of t.contextIds ?? []) dependents.get(dep)?.push(t.nodeId);
  const descendants = (start: string) => {
    const seen = new Set<string>();
    const queue = [...(dependents.get(start) ?? [])];
    for (let i = 0; i < queue.length; i += 1) {
      const id = queue[i] as string;
      if (seen.has(id)) continue;
      seen.add(id);
      queue.push(...(dependents.get(id) ?? []));
    }
    return ids.filter((id) => seen.has(id));
  };
  const blockedOnFailure = Object.fromEntries(ids.map((id) => [id, descendants(id)]));
  // Kahn's order: what it cannot reach sits on or after a cycle; longest chain by dynamic programming.
  const pending = new Map(tasks.map((t) => [t.nodeId, (t.contextIds ?? []).length]));
  const queue = ids.filter((id) => pending.get(id) === 0);
  const longest = new Map<string, string[]>(queue.map((id) => [id, [id]]));
  for (let i = 0; i < queue.length; i += 1) {
    const id = queue[i] as string;
    for (const next of dependents.get(id) ?? []) {
      const candidate = [...(longest.get(id) ?? []), next];
      if (candidate.length > (longest.get(next)?.length ?? 0)) longest.set(next, candidate);
      const left = (pending.get(next) ?? 0) - 1;
      pending.set(next, left);
      if (left === 0) queue.push(next);
    }
  }
  const ordered = new Set(queue);
  const criticalPath = [...longest.values()].reduce<string[]>(
    (best, p) => (p.length > best.length ? p : best),
    [],
  );
  const cycle = findCycle(tasks);
  return {
    process: crew.process,
    terminates: cycle === undefined,
    cycle,
    unreachable: ids.filter((id) => !ordered.has(id)),
    criticalPath,
    blockedOnFailure,
    paths: [{ states: queue, events: queue.map((id) => `SUCCEED.${id}`), outcome: 'completed' }],
  };
}
