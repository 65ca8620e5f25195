import { fromAllocation, fromSynthesis, type ManagerScope } from '../../actors/manager.js';
import { DuplicateRoleError, InvalidOptionError, MissingManagerError } from '../../errors.js';
import { type HierarchicalOutput, hierarchicalMachine } from '../../machines/hierarchical.js';
import type { CrewProcess, CrewRunScope } from '../process.js';
import type { RunRecorder } from '../recorder.js';
import { chainSummary } from './chain.js';

function checkRoles(roles: readonly string[]): void {
  const seen = new Set<string>();
  for (const role of roles) {
    if (seen.has(role)) throw new DuplicateRoleError(role);
    seen.add(role);
  }
}

/** The earlier tasks' raws joined with '\n', extended one task at a time so a run stays linear. */
function accumulatedContext(scope: CrewRunScope) {
  let text = '';
  let through = 0;
  return (index: number): string => {
    for (; through < index; through += 1) {
      const raw = scope.recorder.rawOf((scope.plan.tasks[through] as { nodeId: string }).nodeId) ?? '';
      text = through === 0 ? raw : `${text}\n${raw}`;
    }
    return text;
  };
}

function completedOutputs(scope: CrewRunScope, recorder: RunRecorder): string[] {
  const outputs: string[] = [];
  for (const planned of scope.plan.tasks) {
    const raw = recorder.rawOf(planned.nodeId);
    if (raw !== undefined) outputs.push(raw);
  }
  return outputs;
}

/** A manager allocates each task to a worker by role, then synthesizes: tasks + 1 manager calls. */
export const hierarchicalProcess: CrewProcess = {
  kind: 'hierarchical',
  checkDefinition(crew) {
    if (crew.manager === undefined) throw new MissingManagerError();
    if (crew.agents.length === 0) {
      throw new InvalidOptionError('Crew', 'agents', 'at least one worker for a hierarchical crew', []);
    }
    checkRoles(crew.agents.map((a) => a.role));
  },
  validate(plan) {
    checkRoles(plan.agents.map((a) => a.role));
  },
  supervisor(scope) {
    const { plan, runner, hub } = scope;
    const contextAt = accumulatedContext(scope);
    const managerScope: ManagerScope = {
      manager: scope.crew.manager as ManagerScope['manager'],
      workerRoles: plan.agents.map((a) => a.role),
      goal: plan.goal,
      now: hub.now,
      taskAt: (index) => {
        const planned = plan.tasks[index];
        if (planned === undefined) throw new Error(`No task at position ${index}`);
        return { nodeId: planned.nodeId, description: planned.description, context: contextAt(index) };
      },
      outputs: () => completedOutputs(scope, scope.recorder),
      onCall: (phase, usage) => hub.emit({ type: 'manager.call', phase, usage }),
      onDelegation: (task, role) => hub.emit({ type: 'delegation', task, role }),
    };
    const logic = hierarchicalMachine.provide({
      actors: { allocate: fromAllocation(managerScope), synthesize: fromSynthesis(managerScope) },
      actions: {
        startNode: ({ self }, { index, role }) => {
          const planned = plan.tasks[index];
          const worker = plan.agents.find((a) => a.role === role);
          if (planned === undefined || worker === undefined)
            throw new Error(`Cannot start task ${index} as ${role}`);
          scope.startTask(planned, worker, contextAt(index), self);
        },
        retryNode: (_, { nodeId }) => runner.retry(nodeId),
        blockFrom: ({ self }, { index, reason }) =>
          scope.block(
            plan.tasks.slice(index).map((t) => t.nodeId),
            reason,
            self,
          ),
      },
    });
    return {
      logic,
      input: { total: plan.tasks.length },
      finish(output) {
        const { synthesis, error } = output as HierarchicalOutput;
        if (error !== undefined) throw error;
        if (synthesis === undefined) return chainSummary(plan.tasks, scope.recorder);
        return { raw: synthesis, output: synthesis, leaves: ['synthesis'] };
      },
    };
  },
};
