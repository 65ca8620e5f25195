import { ContextInParallelError, MissingAgentError } from '../../errors.js';
import { type ParallelEffects, parallelMachine } from '../../machines/parallel.js';
import type { Agent } from '../crew/agent.js';
import { acyclicAnalysis, regionsMachine } from '../crew/crew-picture.js';
import { taskAt } from '../crew/plan.js';
import { leafOutput } from '../crew/result.js';
import type { CrewProcess } from '../process.js';
import { type ProcessNode, shapeEdge } from '../process-shape.js';
import { latestRaw } from './chain.js';

/** The marker every task starts from. */
const START: ProcessNode = { id: '@start', label: 'start', kind: 'start' };

/** Every task at once, at most `maxConcurrency` in flight; no context; failures stay isolated. */
export const parallelProcess: CrewProcess = {
  kind: 'parallel',
  checkDefinition() {},
  validate(plan) {
    for (const planned of plan.tasks) {
      if (planned.agent === undefined) throw new MissingAgentError(planned.nodeId, 'parallel');
      if (planned.contextIds !== undefined && planned.contextIds.length > 0) {
        throw new ContextInParallelError(planned.nodeId);
      }
    }
  },
  supervisor(scope) {
    const { plan, runner, recorder } = scope;
    const effects: ParallelEffects = {
      startNode(index, self) {
        const planned = taskAt(plan, index);
        scope.startTask(planned, planned.agent as Agent, '', self);
      },
      retryNode: (nodeId) => runner.retry(nodeId),
    };
    return {
      logic: parallelMachine,
      input: { effects, total: plan.tasks.length, maxConcurrency: scope.crew.maxConcurrency },
      summarize: () => ({
        raw: latestRaw(plan.tasks, recorder),
        ...leafOutput(
          recorder,
          plan.tasks.map((t) => t.nodeId),
        ),
      }),
    };
  },
  toMachine: (shape) =>
    regionsMachine(
      'parallel',
      shape.plan.tasks.map((t) => t.nodeId),
    ),
  shape(plan) {
    const ids = plan.tasks.map((t) => t.nodeId);
    return {
      nodes: [START],
      edges: ids.map((id) => shapeEdge(START.id, id)),
      ends: ids,
      blocksOnFailure: 'none',
      synthesisLeaf: undefined,
      repeats: false,
    };
  },
  analyze(shape) {
    const ids = shape.plan.tasks.map((t) => t.nodeId);
    return acyclicAnalysis(shape, this.shape(shape.plan).blocksOnFailure, {
      criticalPath: ids.slice(0, 1),
      paths: [{ states: ids, events: ids.map((id) => `SUCCEED.${id}`), outcome: 'completed' }],
    });
  },
};
