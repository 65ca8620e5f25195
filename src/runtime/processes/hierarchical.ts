import { type AnyActorRef, fromPromise } from 'xstate';
import { allocate, type ManagerScope, synthesize } from '../../actors/manager.js';
import { DuplicateRoleError, InvalidOptionError, MissingManagerError } from '../../errors.js';
import { type HierarchicalOutput, hierarchicalMachine } from '../../machines/hierarchical.js';
import type { RunKeyed } from '../../machines/settled.js';
import { taskAt } from '../plan.js';
import type { CrewProcess, CrewRunScope } from '../process.js';
import { RunRegistry } from '../run-registry.js';
import { blockRest, chainSummary } from './chain.js';

interface Handlers {
  manager: ManagerScope;
  startNode(index: number, role: string, self: AnyActorRef): void;
  retryNode(nodeId: string): void;
  blockFrom(index: number, reason: string, self: AnyActorRef): void;
}

const runs = new RunRegistry<Handlers>();

const logic = hierarchicalMachine.provide({
  actors: {
    allocate: fromPromise<string, { run: string; index: number }>(({ input, signal }) =>
      allocate(runs.get(input.run).manager, input.index, signal),
    ),
    synthesize: fromPromise<string, RunKeyed>(({ input, signal }) =>
      synthesize(runs.get(input.run).manager, signal),
    ),
  },
  actions: {
    startNode: ({ context, self }, { index, role }) => runs.get(context.run).startNode(index, role, self),
    retryNode: ({ context }, { nodeId }) => runs.get(context.run).retryNode(nodeId),
    blockFrom: ({ context, self }, { index, reason }) => runs.get(context.run).blockFrom(index, reason, self),
  },
});

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
    const { plan, runner, recorder, hub } = scope;
    const contextAt = accumulatedContext(scope);
    const run = runs.register({
      manager: {
        manager: scope.crew.manager as ManagerScope['manager'],
        workerRoles: plan.agents.map((a) => a.role),
        goal: plan.goal,
        now: hub.now,
        taskAt: (index) => {
          const planned = taskAt(plan, index);
          return { nodeId: planned.nodeId, description: planned.description, context: contextAt(index) };
        },
        outputs: () => plan.tasks.flatMap((t) => recorder.rawOf(t.nodeId) ?? []),
        onCall: (phase, usage) => hub.emit({ type: 'manager.call', phase, usage }),
        onDelegation: (task, role) => hub.emit({ type: 'delegation', task, role }),
      },
      startNode(index, role, self) {
        const planned = plan.tasks[index];
        const worker = plan.agents.find((a) => a.role === role);
        if (planned === undefined || worker === undefined)
          throw new Error(`Cannot start task ${index} as ${role}`);
        scope.startTask(planned, worker, contextAt(index), self);
      },
      retryNode: (nodeId) => runner.retry(nodeId),
      blockFrom: (index, reason, self) => blockRest(scope, index, reason, self),
    });
    return {
      logic,
      input: { run, total: plan.tasks.length },
      finish(output) {
        const { synthesis, error } = output as HierarchicalOutput;
        if (error !== undefined) throw error;
        if (synthesis === undefined) return chainSummary(plan.tasks, recorder);
        return { raw: synthesis, output: synthesis, leaves: ['synthesis'] };
      },
      dispose: () => runs.delete(run),
    };
  },
};
