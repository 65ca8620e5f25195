import type { AnyActorRef } from 'xstate';
import { MissingAgentError } from '../../errors.js';
import { type GraphEffects, graphMachine } from '../../machines/graph.js';
import type { Agent } from '../crew/agent.js';
import { regionsMachine } from '../crew/crew-picture.js';
import { assertAcyclic, DagScheduler, layOutDag } from '../crew/dag.js';
import type { CrewPlan, PlannedTask } from '../crew/plan.js';
import type { ProcessSummary } from '../crew/result.js';
import { leafOutput } from '../crew/result.js';
import type { CrewProcess, CrewRunScope, SupervisorSetup } from '../process.js';
import { shapeEdge } from '../process-shape.js';
import { latestRaw } from './chain.js';
import { readContext } from './context-reading.js';
import { analyzeGraph } from './graph-analysis.js';

/** Every task of a graph crew needs an agent (`missing_agent`). */
function checkAgents(plan: CrewPlan): void {
  for (const planned of plan.tasks) {
    if (planned.agent === undefined) throw new MissingAgentError(planned.nodeId, 'graph');
  }
}

/**
 * A DAG whose edges are the tasks' `context` lists: each task runs as soon as all its dependencies
 * completed, reading their outputs (a structured one as JSON) joined with '\n' in its list's order; descendants of a failed task
 * are blocked. A cycle rejects the kickoff before any call.
 */
export const graphProcess: CrewProcess = {
  kind: 'graph',
  checkDefinition() {},
  validate(plan) {
    checkAgents(plan);
    assertAcyclic(plan.tasks);
    // Checked once per plan its runs share: the layout they start from is made with the check.
    layOutDag(plan.tasks);
  },
  // A crew with a cycle is built (its analysis finds the cycle); its kickoff is refused.
  checkPlan: checkAgents,
  supervisor(scope) {
    const { plan, recorder } = scope;
    return dagSupervisor(scope, plan.tasks, plan.byNodeId, {
      readsOf: (planned) => planned.contextIds ?? [],
      summarize(scheduler) {
        const leaves = scheduler.leaves();
        const isLeaf = new Set(leaves);
        const ranLeaves = plan.tasks.filter(
          (t) => isLeaf.has(t.nodeId) && recorder.rawOf(t.nodeId) !== undefined,
        );
        // A graph crew's list order says nothing about the flow: the raw is a leaf's whenever one ran.
        const raw = latestRaw(ranLeaves.length > 0 ? ranLeaves : plan.tasks, recorder);
        return { raw, ...leafOutput(recorder, leaves) };
      },
    });
  },
  toMachine: (shape) =>
    regionsMachine(
      'graph',
      shape.plan.tasks.map((t) => t.nodeId),
    ),
  shape(plan) {
    // The ends are the leaves: the tasks no other task reads.
    const read = new Set(plan.tasks.flatMap((t) => t.contextIds ?? []));
    return {
      nodes: [],
      edges: plan.tasks.flatMap((t) => (t.contextIds ?? []).map((dep) => shapeEdge(dep, t.nodeId))),
      ends: plan.tasks.filter((t) => !read.has(t.nodeId)).map((t) => t.nodeId),
      blocksOnFailure: 'descendants',
      synthesisLeaf: undefined,
      repeats: false,
    };
  },
  analyze(shape) {
    return analyzeGraph(shape, this.shape(shape.plan).blocksOnFailure);
  },
};

/** How a DAG supervisor reads its tasks' contexts and sums its run up. */
export interface DagRunParts {
  /** The tasks whose outputs a task run reads as its context, in order. */
  readsOf(planned: PlannedTask): readonly string[];
  /** What those outputs are joined with for a task run. @default '\n' */
  separatorOf?(planned: PlannedTask): string;
  /** The process's part of the result, once the run ended. */
  summarize(scheduler: DagScheduler): ProcessSummary;
}

/**
 * The supervisor of a DAG run over `tasks` (each one's `contextPositions` are its dependencies;
 * `byNodeId` finds them by node id): a
 * task starts as soon as all its dependencies completed, at most `maxConcurrency` at once, and the
 * descendants of a failed task are blocked. The graph process runs it; so does a sequential crew
 * with asynchronous tasks, compiled into dependencies.
 */
export function dagSupervisor(
  scope: CrewRunScope,
  tasks: readonly PlannedTask[],
  byNodeId: ReadonlyMap<string, PlannedTask>,
  parts: DagRunParts,
): SupervisorSetup {
  const { runner } = scope;
  const scheduler = new DagScheduler(tasks, scope.crew.maxConcurrency, byNodeId);
  const startNext = (self: AnyActorRef) => {
    const planned = scheduler.start();
    readContext(
      scope.recorder,
      parts.readsOf(planned),
      runner,
      (context) => scope.startTaskNow(planned, planned.agent as Agent, context, self),
      parts.separatorOf?.(planned),
    );
  };
  // Ready tasks start one queued operation each on the runner's queue, which yields to the event
  // loop now and then: 100,000 ready tasks never hold the loop while their runs are prepared.
  let pumping = false;
  const pump = (self: AnyActorRef) => {
    pumping = false;
    if (!scheduler.canStart) return;
    startNext(self);
    if (scheduler.canStart) {
      pumping = true;
      runner.schedule(() => pump(self));
    }
  };
  const effects: GraphEffects = {
    allSettled: () => scheduler.allSettled,
    recordCompleted: (nodeId) => scheduler.completed(nodeId),
    fill(self) {
      if (pumping || !scheduler.canStart) return;
      pumping = true;
      runner.schedule(() => pump(self));
    },
    recordFailed(nodeId, self) {
      const blocked = scheduler.failed(nodeId);
      if (blocked.length > 0) scope.block(blocked, nodeId, self);
    },
    // A task that waits holds its descendants back as a failed one does, until the run goes on.
    recordWaiting(nodeId, self) {
      const blocked = scheduler.failed(nodeId);
      if (blocked.length > 0) scope.block(blocked, nodeId, self);
    },
    retryNode: (nodeId) => runner.retry(nodeId),
  };
  return {
    logic: graphMachine,
    input: { effects },
    summarize: () => parts.summarize(scheduler),
  };
}
