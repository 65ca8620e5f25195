import {
  type SequentialEffects,
  type SequentialInput,
  sequentialMachine,
} from '../../machines/sequential.js';
import type { Agent } from '../crew/agent.js';
import { chainAnalysis, chainStateName, chainTask, regionsMachine } from '../crew/crew-picture.js';
import { type CrewPlan, taskAt } from '../crew/plan.js';
import { inertEffects, picturePaths, settleMoves, supervisorPicture } from '../crew/supervisor-picture.js';
import type { CrewProcess } from '../process.js';
import { chainShapeEdges, type ProcessShape, shapeEdge } from '../process-shape.js';
import {
  asyncChainSupervisor,
  checkAsyncContext,
  checkAsyncEnd,
  compileAsyncChain,
  hasAsyncTasks,
} from './async-chain.js';
import { blockRest, chainContexts, chainSummary, validateChain } from './chain.js';
import { analyzeGraph } from './graph-analysis.js';

/** A sequential crew's shape when some tasks are asynchronous: its compiled dependencies. */
function asyncShape(plan: CrewPlan): ProcessShape {
  const { tasks } = compileAsyncChain(plan);
  const last = plan.tasks[plan.tasks.length - 1];
  return {
    nodes: [],
    edges: tasks.flatMap((t) => (t.contextIds ?? []).map((dep) => shapeEdge(dep, t.nodeId))),
    ends: last === undefined ? [] : [last.nodeId],
    blocksOnFailure: 'descendants',
    synthesisLeaf: undefined,
    repeats: false,
  };
}

/**
 * Tasks in list order, each reading the context its `context` list asks for (unset: the previous
 * task's output, or every earlier one's with the crew's `context: 'all'`). An asynchronous task
 * (`asyncExecution`) runs beside the tasks after it until the first that is not asynchronous, which
 * waits for it and reads its output (CrewAI's `async_execution`).
 */
export const sequentialProcess: CrewProcess = {
  kind: 'sequential',
  checkDefinition(crew) {
    checkAsyncEnd(crew.tasks);
  },
  validate(plan) {
    validateChain(plan, 'sequential');
    checkAsyncContext(plan);
  },
  supervisor(scope) {
    const { plan, runner, recorder } = scope;
    if (hasAsyncTasks(plan)) return asyncChainSupervisor(scope);
    const contextOf = chainContexts(plan, recorder, scope.crew.context);
    const effects: SequentialEffects = {
      startNode(index, self) {
        const planned = taskAt(plan, index);
        scope.startTask(planned, planned.agent as Agent, contextOf(planned), self);
      },
      retryNode: (nodeId) => runner.retry(nodeId),
      blockFrom: (index, reason, self) => blockRest(scope, index, reason, self),
    };
    return {
      logic: sequentialMachine,
      input: { effects, total: plan.tasks.length },
      summarize: () => chainSummary(plan.tasks, recorder),
    };
  },
  toMachine(shape) {
    const ids = shape.plan.tasks.map((t) => t.nodeId);
    if (hasAsyncTasks(shape.plan)) return regionsMachine('sequential', ids);
    const effects = inertEffects<SequentialEffects>('sequential');
    return supervisorPicture({
      id: 'sequential',
      logic: sequentialMachine,
      input: { effects, total: ids.length } satisfies SequentialInput,
      moves: (snapshot) => (snapshot.matches('running') ? settleMoves(chainTask(ids, snapshot)) : []),
      name: (snapshot) => chainStateName(ids, snapshot),
      describe: (snapshot) =>
        snapshot.matches('running') ? `Runs task ${chainTask(ids, snapshot)}` : undefined,
    });
  },
  shape(plan) {
    if (hasAsyncTasks(plan)) return asyncShape(plan);
    const ids = plan.tasks.map((t) => t.nodeId);
    return {
      nodes: [],
      edges: chainShapeEdges(ids),
      ends: ids.slice(-1),
      blocksOnFailure: 'following',
      synthesisLeaf: undefined,
      repeats: false,
    };
  },
  analyze(shape) {
    if (hasAsyncTasks(shape.plan)) {
      const plan = { ...shape.plan, ...compileAsyncChain(shape.plan) };
      return analyzeGraph({ ...shape, plan }, 'descendants');
    }
    const paths = picturePaths(this.toMachine(shape));
    return chainAnalysis(shape, this.shape(shape.plan).blocksOnFailure, paths);
  },
};
