import type { AnyActorLogic, AnyActorRef } from 'xstate';
import type { ManagerLike } from '../actors/manager.js';
import type { Agent } from './agent.js';
import type { EventHub } from './event-hub.js';
import type { CrewPlan, PlannedTask } from './plan.js';
import type { RunRecorder } from './recorder.js';
import type { ProcessSummary } from './result.js';
import type { TaskRunner } from './task-runner.js';

/** The names of the processes a crew can run with. */
export type ProcessKind = 'sequential' | 'hierarchical';

/** What a crew definition offers a process for its checks. */
export interface CrewDefinition {
  readonly agents: readonly Agent[];
  readonly manager: ManagerLike | undefined;
}

/** Everything a process's supervisor works with during one run. */
export interface CrewRunScope {
  readonly plan: CrewPlan;
  readonly runner: TaskRunner;
  readonly recorder: RunRecorder;
  readonly hub: EventHub;
  readonly manager: ManagerLike | undefined;
  /** Starts a run of `planned` by `agent`, reading `context`, under `supervisor`. */
  startTask(planned: PlannedTask, agent: Agent, context: string, supervisor: AnyActorRef): void;
  /** Blocks the tasks from position `index` on, because `reason` failed. */
  blockFrom(index: number, reason: string, supervisor: AnyActorRef): void;
}

/** A supervisor's logic with the run's implementations provided, and its input. */
export interface SupervisorSetup {
  logic: AnyActorLogic;
  input: unknown;
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
  /** The process's part of the result, from the supervisor's output; throws to reject the run. */
  finish(scope: CrewRunScope, output: unknown): ProcessSummary;
}
