import type { ConversationExecutor } from '../../actors/conversation-job.js';
import type { Store } from '../../stores/store.js';
import type { IgnoredKey, ModelPrice, RunLineage } from '../../types.js';
import type { RunOwner } from '../durable/run-owner.js';
import type { Budget } from '../engine/budget.js';
import type { CrewDefinition } from '../process.js';
import type { StoreErrorPolicy } from '../run/run-commits.js';
import type { StoredTaskResult } from './crew-store.js';
import type { MemoryOptions } from './memory.js';
import type { PlanSource } from './plan.js';
import type { SummaryNode } from './summary.js';
import type { WaitingTasks } from './waiting-tasks.js';

/** What a run needs of its crew. */
export interface RunnableCrew extends PlanSource, CrewDefinition {
  readonly name: string;
  readonly store: Store | undefined;
  readonly budget: Budget | undefined;
  readonly prices: Readonly<Record<string, ModelPrice>> | undefined;
  readonly summary: SummaryNode | undefined;
  readonly executor: ConversationExecutor | undefined;
  readonly memory: MemoryOptions | undefined;
  readonly leaseMs: number | undefined;
  readonly onStoreError: StoreErrorPolicy | undefined;
  readonly maxDelegationDepth: number;
  readonly strictInputs: boolean;
  /** Keys of the crew's YAML that `loadCrew` ignored: `run.warning` and `metadata.ignoredKeys`. */
  readonly ignoredKeys?: readonly IgnoredKey[];
}

/** What a resumed, replayed or forked run takes from an earlier one. */
export interface RunRestore {
  /** Completed task results kept by the store, by node id: these tasks are not run again. */
  results: ReadonlyMap<string, StoredTaskResult>;
  /** Every node id the earlier run got to (completed or failed), restored or not. */
  reached: ReadonlySet<string>;
  /**
   * A new run's restored results (a replay's, a fork's), in the source run's commit order: written in
   * the new run's first commit, before any task runs, so its records and history start with them.
   */
  kept?: readonly StoredTaskResult[];
  /** The execution a replay starts from (`metadata.replayOf`). */
  replayOf?: string;
  /** A fork: the run and checkpoint it starts from (`metadata.forkedFrom`, its head's `data.forkedFrom`). */
  forkedFrom?: RunLineage;
  /** The owner that claimed the stored run this one goes on with (a resume). */
  owner?: RunOwner;
  /** Task runs the earlier run left waiting for a human, and the answers they go on with (a resume). */
  waiting?: WaitingTasks;
}
