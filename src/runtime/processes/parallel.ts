import { ContextInParallelError, MissingAgentError } from '../../errors.js';
import { type ParallelOutput, parallelMachine } from '../../machines/parallel.js';
import type { Agent } from '../agent.js';
import type { CrewProcess } from '../process.js';
import { leafOutput } from '../result.js';
import { latestRaw } from './chain.js';

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
    const { plan, runner } = scope;
    const logic = parallelMachine.provide({
      actions: {
        startNode: ({ self }, { index }) => {
          const planned = plan.tasks[index];
          if (planned === undefined) throw new Error(`No task at position ${index}`);
          scope.startTask(planned, planned.agent as Agent, '', self);
        },
        retryNode: (_, { nodeId }) => runner.retry(nodeId),
      },
    });
    return {
      logic,
      input: { total: plan.tasks.length, maxConcurrency: scope.crew.maxConcurrency },
      finish(output) {
        const { error } = output as ParallelOutput;
        if (error !== undefined) throw error;
        const { recorder } = scope;
        return {
          raw: latestRaw(plan.tasks, recorder),
          ...leafOutput(
            recorder,
            plan.tasks.map((t) => t.nodeId),
          ),
        };
      },
    };
  },
};
