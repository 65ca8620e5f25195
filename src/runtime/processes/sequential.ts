import { type SequentialOutput, sequentialMachine } from '../../machines/sequential.js';
import type { Agent } from '../agent.js';
import type { CrewProcess } from '../process.js';
import { chainContext, chainSummary, validateChain } from './chain.js';

/** Tasks in list order, each reading the context its `context` list asks for. */
export const sequentialProcess: CrewProcess = {
  kind: 'sequential',
  checkDefinition() {},
  validate(plan) {
    validateChain(plan, 'sequential');
  },
  supervisor(scope) {
    const { plan, runner, recorder } = scope;
    const logic = sequentialMachine.provide({
      actions: {
        startNode: ({ self }, { index }) => {
          const planned = plan.tasks[index];
          if (planned === undefined) throw new Error(`No task at position ${index}`);
          scope.startTask(planned, planned.agent as Agent, chainContext(plan, planned, recorder), self);
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
        const { error } = output as SequentialOutput;
        if (error !== undefined) throw error;
        return chainSummary(plan.tasks, recorder);
      },
    };
  },
};
