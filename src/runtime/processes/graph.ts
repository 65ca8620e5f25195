import { MissingAgentError } from '../../errors.js';
import { type GraphOutput, graphMachine } from '../../machines/graph.js';
import type { Agent } from '../agent.js';
import { assertAcyclic, DagScheduler } from '../dag.js';
import type { CrewProcess } from '../process.js';
import { leafOutput } from '../result.js';
import { latestRaw } from './chain.js';

/**
 * A DAG whose edges are the tasks' `context` lists: each task runs as soon as all its dependencies
 * completed, reading their raws joined with '\n' in its list's order; descendants of a failed task
 * are blocked. A cycle rejects the kickoff before any call.
 */
export const graphProcess: CrewProcess = {
  kind: 'graph',
  checkDefinition() {},
  validate(plan) {
    for (const planned of plan.tasks) {
      if (planned.agent === undefined) throw new MissingAgentError(planned.nodeId, 'graph');
    }
    assertAcyclic(plan.tasks);
  },
  supervisor(scope) {
    const { plan, runner, recorder } = scope;
    const scheduler = new DagScheduler(plan.tasks, scope.crew.maxConcurrency);
    const logic = graphMachine.provide({
      guards: { allSettled: () => scheduler.allSettled },
      actions: {
        fill: ({ self }) => {
          while (scheduler.canStart) {
            const planned = scheduler.start();
            const context = (planned.contextIds ?? []).map((id) => recorder.rawOf(id) ?? '').join('\n');
            scope.startTask(planned, planned.agent as Agent, context, self);
          }
        },
        recordCompleted: (_, { nodeId }) => scheduler.completed(nodeId),
        recordFailed: ({ self }, { nodeId }) => {
          const blocked = scheduler.failed(nodeId);
          if (blocked.length > 0) scope.block(blocked, nodeId, self);
        },
        retryNode: (_, { nodeId }) => runner.retry(nodeId),
      },
    });
    return {
      logic,
      input: undefined,
      finish(output) {
        const { error } = output as GraphOutput;
        if (error !== undefined) throw error;
        const leaves = scheduler.leaves();
        const isLeaf = new Set(leaves);
        const ranLeaves = plan.tasks.filter(
          (t) => isLeaf.has(t.nodeId) && recorder.rawOf(t.nodeId) !== undefined,
        );
        // A graph crew's list order says nothing about the flow: the raw is a leaf's whenever one ran.
        const raw = latestRaw(ranLeaves.length > 0 ? ranLeaves : plan.tasks, recorder);
        return { raw, ...leafOutput(recorder, leaves) };
      },
    };
  },
};
