import type { AnyActorLogic, AnyActorRef } from 'xstate';
import type { ManagerLike } from '../actors/manager.js';
import type { Llm } from '../types.js';
import type { Agent } from './agent.js';
import type { EventHub } from './event-hub.js';
import type { CrewPlan, PlannedTask } from './plan.js';
import type { RunRecorder } from './recorder.js';
import type { ProcessSummary } from './result.js';
import type { TaskRunner } from './task-runner.js';

/** The names of the processes a crew can run with. */
export type ProcessKind = 'sequential' | 'hierarchical' | 'parallel' | 'graph' | 'loop';

/** A loop crew's repetition: run the tasks, ask the judge, stop on YES or at `maxIterations`. */
export interface LoopOptions {
  /** What must hold for the loop to stop, as the judge is asked it. */
  condition: string;
  /** Iterations at most. @default 3 */
  maxIterations?: number | undefined;
  /** Answers YES or NO (first word) on whether the condition holds for the iteration's final output. */
  judge: Llm;
}

/** What a crew definition offers a process. */
export interface CrewDefinition {
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
  readonly hub: EventHub;
  readonly crew: CrewDefinition;
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
  /** Records runs that will never start because `reason` failed. */
  block(nodeIds: readonly string[], reason: string, supervisor: AnyActorRef): void;
}

/** A supervisor for one run: its logic with the run's implementations provided, its input, and how its output becomes the process's part of the result. */
export interface SupervisorSetup {
  logic: AnyActorLogic;
  input: unknown;
  /** Reads the supervisor's output; throws to reject the run. */
  finish(output: unknown): ProcessSummary;
  /** Forgets the run's handlers once the run ended. */
  dispose(): void;
}

/**
 * One way of running a crew's tasks. Each process is its own supervisor machine; the shared run code
 * only ever talks to this interface.
 */
export interface CrewProcess {
  readonly kind: ProcessKind;
  /** Checks of the definition that can fail at construction (`duplicate_role`, …). */
  checkDefinition(crew: CrewDefinition): void;
  /** Checks of one run's plan, before any call (`context_forward_reference`, `missing_agent`, …). */
  validate(plan: CrewPlan): void;
  /** The supervisor for one run. */
  supervisor(scope: CrewRunScope): SupervisorSetup;
}
