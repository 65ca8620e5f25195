import type { AnyActorRef } from 'xstate';
import { sequentialMachine } from '../../machines/sequential.js';
import type { Agent } from '../crew/agent.js';
import { chainAnalysis, chainStates, endStates, machinePaths } from '../crew/crew-picture.js';
import { taskAt } from '../crew/plan.js';
import { createPlainMachine } from '../engine/plain-machine.js';
import { RunRegistry } from '../engine/run-registry.js';
import type { CrewProcess } from '../process.js';
import { chainShapeEdges } from '../process-shape.js';
import { blockRest, chainContext, chainSummary, validateChain } from './chain.js';

interface Handlers {
  startNode(index: number, self: AnyActorRef): void;
  retryNode(nodeId: string): void;
  blockFrom(index: number, reason: string, self: AnyActorRef): void;
}

const runs = new RunRegistry<Handlers>();

const logic = sequentialMachine.provide({
  actions: {
    startNode: ({ context, self }, { index }) => runs.get(context.run).startNode(index, self),
    retryNode: ({ context }, { nodeId }) => runs.get(context.run).retryNode(nodeId),
    blockFrom: ({ context, self }, { index, reason }) => runs.get(context.run).blockFrom(index, reason, self),
  },
});

/** Tasks in list order, each reading the context its `context` list asks for. */
export const sequentialProcess: CrewProcess = {
  kind: 'sequential',
  checkDefinition() {},
  validate(plan) {
    validateChain(plan, 'sequential');
  },
  supervisor(scope) {
    const { plan, runner, recorder } = scope;
    const run = runs.register({
      startNode(index, self) {
        const planned = taskAt(plan, index);
        scope.startTask(planned, planned.agent as Agent, chainContext(plan, planned, recorder), self);
      },
      retryNode: (nodeId) => runner.retry(nodeId),
      blockFrom: (index, reason, self) => blockRest(scope, index, reason, self),
    });
    return {
      logic,
      input: { run, total: plan.tasks.length },
      summarize: () => chainSummary(plan.tasks, recorder),
      dispose: () => runs.delete(run),
    };
  },
  toMachine(shape) {
    const ids = shape.plan.tasks.map((t) => t.nodeId);
    const states = endStates();
    chainStates(ids, '', 'completed', states);
    return createPlainMachine({ id: 'sequential', initial: ids[0] ?? 'completed', states });
  },
  shape(plan) {
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
    const paths = machinePaths(this.toMachine(shape), 'simple');
    return chainAnalysis(shape, this.shape(shape.plan).blocksOnFailure, paths);
  },
};
