import { advisorExecutor } from '../../actors/advisor.js';
import { allocate, type ManagerScope, synthesize } from '../../actors/manager.js';
import { DuplicateRoleError, InternalError, InvalidOptionError, MissingManagerError } from '../../errors.js';
import {
  type HierarchicalContext,
  type HierarchicalEffects,
  type HierarchicalInput,
  type HierarchicalOutput,
  hierarchicalMachine,
} from '../../machines/hierarchical.js';
import { type CrewShape, chainAnalysis, chainTask, endName } from '../crew/crew-picture.js';
import { type CrewPlan, taskAt } from '../crew/plan.js';
import {
  answerMove,
  inertEffects,
  picturePaths,
  type SupervisorWalk,
  settleMoves,
  supervisorPicture,
} from '../crew/supervisor-picture.js';
import type { RunRecorder } from '../engine/recorder.js';
import type { CrewProcess } from '../process.js';
import { type ProcessNode, shapeEdge } from '../process-shape.js';
import { blockRest, chainSummary, validateContextOrder } from './chain.js';

/**
 * Refuses a manager agent that is also one of the crew's agents (its `agents`, else its tasks'
 * agents), which would hand tasks to itself: `invalid_option` naming its role, at construction, as
 * CrewAI refuses it ("Manager agent should not be included in agents list.").
 */
function checkManagerNotWorker(manager: unknown, agents: readonly { role: string }[]): void {
  const listed = agents.find((agent) => agent === manager);
  if (listed === undefined) return;
  throw new InvalidOptionError('Crew', 'agents', 'the workers, without the manager', listed.role, {
    message: `Crew: the manager agent "${listed.role}" is also among the crew's agents: a hierarchical crew's manager hands the tasks to its workers and is not one of them (leave it out of \`agents\` and of the tasks' \`agent\`)`,
  });
}

/** The leaf a run's output comes from once the manager synthesized it. */
const SYNTHESIS_LEAF = 'synthesis';
/** The manager, whose runs are its allocations (`allocate:<index>`). */
const MANAGER: ProcessNode = { id: '@manager', label: 'manager', kind: 'manager', runs: /^allocate:/ };
/** The manager's synthesis (its run: `synthesize`), the run's output. */
const SYNTHESIS: ProcessNode = {
  id: '@synthesis',
  label: 'synthesis',
  kind: 'synthesis',
  runs: /^synthesize$/,
};

/**
 * The walk of the hierarchical supervisor for `shape`: in each allocation the manager answers one of
 * `allocations` (`[label, role]`) or fails; each task completes or fails; the synthesis succeeds or fails.
 */
function hierarchicalWalk(
  shape: CrewShape,
  allocations: readonly (readonly [string, string])[],
): SupervisorWalk {
  const ids = shape.plan.tasks.map((t) => t.nodeId);
  const input: HierarchicalInput = {
    effects: inertEffects<HierarchicalEffects>('hierarchical'),
    total: ids.length,
    manager: 'manager',
  };
  return {
    id: 'hierarchical',
    logic: hierarchicalMachine,
    input,
    moves(snapshot) {
      const { index } = snapshot.context as HierarchicalContext;
      if (snapshot.matches('allocating'))
        return [
          ...allocations.map(([label, role]) => answerMove(label, index + 1, role)),
          answerMove('FAIL', index + 1, undefined),
        ];
      if (snapshot.matches('working')) return settleMoves(chainTask(ids, snapshot));
      if (snapshot.matches('synthesizing'))
        return [answerMove('SUCCEED', index + 1, 'synthesis'), answerMove('FAIL', index + 1, undefined)];
      return [];
    },
    name(snapshot) {
      if (snapshot.status === 'done') return endName(snapshot);
      if (snapshot.matches('allocating')) return `allocate ${chainTask(ids, snapshot)}`;
      return snapshot.matches('synthesizing') ? 'synthesize' : chainTask(ids, snapshot);
    },
    describe(snapshot) {
      if (snapshot.matches('allocating')) return `The manager allocates ${chainTask(ids, snapshot)}`;
      return snapshot.matches('synthesizing') ? 'The manager synthesizes' : undefined;
    },
  };
}

function checkRoles(roles: readonly string[]): void {
  const seen = new Set<string>();
  for (const role of roles) {
    if (seen.has(role)) throw new DuplicateRoleError(role);
    seen.add(role);
  }
}

/**
 * The context of the task at `index`, as in a sequential crew except for an unset `context`: that
 * reads the accumulated context, every earlier task's output (a structured one as JSON) joined with '\n' (extended one task at a
 * time so a run stays linear). `[]` reads nothing; `[a, b]` those tasks' outputs joined with '\n'.
 */
function hierarchicalContext(plan: CrewPlan, recorder: RunRecorder) {
  let accumulated = '';
  let through = 0;
  return (index: number): string => {
    const planned = taskAt(plan, index);
    if (planned.contextIds !== undefined) {
      return planned.contextIds.map((id) => recorder.contextOf(id) ?? '').join('\n');
    }
    for (; through < index; through += 1) {
      const raw = recorder.contextOf(taskAt(plan, through).nodeId) ?? '';
      accumulated = through === 0 ? raw : `${accumulated}\n${raw}`;
    }
    return accumulated;
  };
}

/** A manager allocates each task to a worker by role, then synthesizes: tasks + 1 manager calls. */
export const hierarchicalProcess: CrewProcess = {
  kind: 'hierarchical',
  checkDefinition(crew) {
    if (crew.manager === undefined) throw new MissingManagerError();
    if (crew.agents.length === 0) {
      throw new InvalidOptionError('Crew', 'agents', 'at least one worker for a hierarchical crew', []);
    }
    checkManagerNotWorker(crew.manager, crew.agents);
    checkRoles(crew.agents.map((a) => a.role));
  },
  validate(plan) {
    checkRoles(plan.agents.map((a) => a.role));
    validateContextOrder(plan);
  },
  supervisor(scope) {
    const { plan, runner, recorder, hub } = scope;
    const contextAt = hierarchicalContext(plan, recorder);
    const manager: ManagerScope = {
      manager: scope.crew.manager as ManagerScope['manager'],
      workerRoles: plan.agents.map((a) => a.role),
      goal: plan.goal,
      now: hub.now,
      taskAt: (index) => {
        const planned = taskAt(plan, index);
        return { nodeId: planned.nodeId, description: planned.description, context: contextAt(index) };
      },
      outputs: () => plan.tasks.flatMap((t) => recorder.contextOf(t.nodeId) ?? []),
      onCall: (phase, usage) => hub.emit({ type: 'manager.call', phase, usage }),
      gate: scope.gate,
      onDelegation: (task, role) => hub.emit({ type: 'delegation', kind: 'allocate', task, role }),
    };
    const effects: HierarchicalEffects = {
      startNode(index, role, self) {
        const worker = plan.agents.find((a) => a.role === role);
        if (worker === undefined)
          throw new InternalError('hierarchical.startNode', `No worker holds role "${role}"`, { role });
        scope.startTask(taskAt(plan, index), worker, contextAt(index), self);
      },
      retryNode: (nodeId) => runner.retry(nodeId),
      blockFrom: (index, reason, self) => blockRest(scope, index, reason, self),
      stopForBudget(index, failure, self) {
        // The refused call is the node that failed: `allocate:<task>`, or `synthesize`.
        const synthesis = index >= plan.tasks.length;
        const nodeId = synthesis ? 'synthesize' : `allocate:${taskAt(plan, index).nodeId}`;
        scope.recordFailure(nodeId, failure);
        if (!synthesis) blockRest(scope, index, nodeId, self);
      },
    };
    const total = plan.tasks.length;
    const managerId = `${runner.key}:manager`;
    return {
      logic: hierarchicalMachine,
      input: { effects, total, manager: managerId },
      advisors: [
        {
          name: 'manager',
          systemId: managerId,
          executor: advisorExecutor((work, signal) => {
            if (work.attempt > total) return synthesize(manager, signal);
            const index = work.attempt - 1;
            // A task an earlier run completed, or left waiting for a human, keeps the worker it had:
            // the manager is not asked again.
            const { nodeId } = taskAt(plan, index);
            const kept = scope.restored.get(nodeId)?.agent ?? scope.waiting?.agentOf(nodeId);
            if (kept !== undefined && manager.workerRoles.includes(kept)) {
              manager.onDelegation(nodeId, kept);
              return Promise.resolve(kept);
            }
            return allocate(manager, index, signal);
          }, hub.now),
        },
      ],
      summarize(output) {
        const { synthesis } = output as HierarchicalOutput;
        if (synthesis === undefined) return chainSummary(plan.tasks, recorder);
        return { raw: synthesis, output: synthesis, leaves: [SYNTHESIS_LEAF] };
      },
    };
  },
  toMachine(shape) {
    const roles = shape.plan.agents.map((a) => a.role);
    return supervisorPicture(
      hierarchicalWalk(
        shape,
        roles.map((role) => [`ALLOCATE.${role}`, role]),
      ),
    );
  },
  shape(plan) {
    const ids = plan.tasks.map((t) => t.nodeId);
    return {
      nodes: [MANAGER, SYNTHESIS],
      edges: [
        ...ids.map((id) => shapeEdge(MANAGER.id, id, 'allocates')),
        ...ids.map((id) => shapeEdge(id, SYNTHESIS.id)),
      ],
      ends: [SYNTHESIS.id],
      blocksOnFailure: 'following',
      synthesisLeaf: SYNTHESIS_LEAF,
      repeats: false,
    };
  },
  analyze(shape) {
    // Which worker the manager picks changes who runs a task, not where the run can go: the paths
    // walk one allocation per task, so each way to end is listed once (not roles^tasks times).
    const anyWorker = shape.plan.agents[0]?.role ?? '';
    const paths = picturePaths(supervisorPicture(hierarchicalWalk(shape, [['ALLOCATE', anyWorker]])));
    return chainAnalysis(shape, this.shape(shape.plan).blocksOnFailure, paths);
  },
};
