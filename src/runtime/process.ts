import type { AnyActorLogic, AnyActorRef } from 'xstate';
import type { ManagerLike } from '../actors/manager.js';
import type { NodeFailure } from '../machines/lifecycle.js';
import type { Llm } from '../types.js';
import type { Agent } from './crew/agent.js';
import type { CrewAnalysis, CrewShape } from './crew/crew-picture.js';
import type { StoredTaskResult } from './crew/crew-store.js';
import type { CrewPlan, PlannedTask } from './crew/plan.js';
import type { ProcessSummary } from './crew/result.js';
import type { Task } from './crew/task.js';
import type { TaskRunner } from './crew/task-runner.js';
import type { WaitingTasks } from './crew/waiting-tasks.js';
import type { CallGate } from './engine/budget.js';
import type { PlainMachine } from './engine/plain-machine.js';
import type { RunRecorder } from './engine/recorder.js';
import type { ProcessShape } from './process-shape.js';
import type { Advisor } from './run/node-runner.js';
import type { RunEvents } from './run/run-events.js';

/** A loop crew's repetition: run the tasks, ask the judge, stop on YES or at `maxIterations`. */
export interface LoopOptions {
  /** What must hold for the loop to stop, as the judge is asked it. */
  condition: string;
  /** Iterations at most. @default 3 */
  maxIterations?: number | undefined;
  /** Answers YES or NO (first word) on whether the condition holds for the iteration's final output. */
  judge: Llm;
}

/**
 * What a task without a `context` list reads in a sequential (or loop) crew: the previous task's
 * output, or every earlier task's output as CrewAI gives it.
 */
export type ContextDefault = 'previous' | 'all';

/** What a crew definition offers a process. */
export interface CrewDefinition {
  /** The tasks, in list order. */
  readonly tasks: readonly Task[];
  /** What a task without a `context` list reads (sequential and loop crews). @default 'previous' */
  readonly context?: ContextDefault | undefined;
  readonly agents: readonly Agent[];
  readonly manager: ManagerLike | undefined;
  /** Task runs in flight at most, for the processes that run several at once. */
  readonly maxConcurrency: number;
  readonly loop: LoopOptions | undefined;
}

/** Everything a process's supervisor works with during one run. */
export interface CrewRunScope {
  readonly plan: CrewPlan;
  readonly runner: TaskRunner;
  readonly recorder: RunRecorder;
  readonly hub: RunEvents;
  readonly crew: CrewDefinition;
  /**
   * Completed results an earlier run of this execution kept, by node id (empty for a fresh run): the
   * runner completes these tasks with them at once; advisors skip what they decided for them.
   */
  readonly restored: ReadonlyMap<string, StoredTaskResult>;
  /** Every node id an earlier run of this execution got to, completed or failed (empty for a fresh run). */
  readonly reached: ReadonlySet<string>;
  /** Runs an earlier run of this execution left waiting for a human (a resume with answers). */
  readonly waiting?: WaitingTasks | undefined;
  /** What every model call of the run passes (the budget) and what it costs (the prices): advisors' too. */
  readonly gate: CallGate;
  /**
   * Starts a run of `planned` by `agent`, reading `context`, under `supervisor`; its node id is the
   * task's unless given (a loop's runs are `<task>#<iteration>`).
   */
  startTask(
    planned: PlannedTask,
    agent: Agent,
    context: string,
    supervisor: AnyActorRef,
    nodeId?: string,
  ): void;
  /**
   * Starts a run of `planned` at once: only from an operation the runner runs (`runner.schedule`),
   * where no supervisor transition is in progress.
   */
  startTaskNow(planned: PlannedTask, agent: Agent, context: string, supervisor: AnyActorRef): void;
  /**
   * Records a call made outside any task run that failed for good (an advisor's call the budget
   * refused) as the failed node `nodeId`, so the result reports it and is not `completed`.
   */
  recordFailure(nodeId: string, failure: NodeFailure): void;
  /** Records runs that will never start because `reason` failed. */
  block(nodeIds: readonly string[], reason: string, supervisor: AnyActorRef): void;
}

/** What every supervisor's output carries: why the run was rejected, if it was. */
export interface SupervisorOutput {
  error: unknown;
}

/** A supervisor for one run: its logic, its input, and how its output becomes the process's part of the result. */
export interface SupervisorSetup {
  logic: AnyActorLogic;
  input: unknown;
  /**
   * The process's part of the result from the supervisor's output (also the output of an aborted
   * supervisor, for the partial result). The shared run code rejects the run when `error` is set.
   */
  summarize(output: SupervisorOutput): ProcessSummary;
  /** The actors it asks besides the agents (a manager, a judge), created before it starts. */
  advisors?: readonly Advisor[];
}

/**
 * One way of running a crew's tasks, and everything about it: its definition and plan checks, its
 * supervisor, its result summary, and its pictures and analysis. The shared code only ever talks to
 * this interface and never switches on the kind; adding a process is a file in `processes/`, its
 * machine in `machines/` and a line in the registry.
 */
export interface CrewProcess {
  /** The name a crew chooses it by (`process: 'graph'`). */
  readonly kind: string;
  /** Checks of the definition that can fail at construction (`duplicate_role`, …). */
  checkDefinition(crew: CrewDefinition): void;
  /** Checks of one run's plan, before any call (`context_forward_reference`, `missing_agent`, …). */
  validate(plan: CrewPlan): void;
  /**
   * Checks of the plan made when the crew is made: those of `validate` a crew cannot be built with
   * (a graph crew with a cycle can be built, analysed and drawn; only its kickoff is refused).
   * @default validate
   */
  checkPlan?(plan: CrewPlan): void;
  /** The supervisor for one run. */
  supervisor(scope: CrewRunScope): SupervisorSetup;
  /** The crew's control flow as a plain XState machine (`crew.toMachine()`). */
  toMachine(shape: CrewShape): PlainMachine;
  /**
   * The process's shape for `plan`: the nodes it adds besides the tasks, the edges between them all,
   * the nodes the run ends with, and how its runs go (what a failure blocks, whether the output is a
   * synthesis, whether the tasks repeat). The run view, the Mermaid flowchart, the CLI and the
   * analysis draw from it and never switch on the kind.
   */
  shape(plan: CrewPlan): ProcessShape;
  /** What `crew.analyze()` finds for this process. */
  analyze(shape: CrewShape): CrewAnalysis;
}
