import type { PendingStep, SnapshotRound } from '../../machines/flow/waits.js';
import type { ApprovalAnswer, Failure, ReviewAnswer, RunLineage } from '../../types.js';

/**
 * The version of the stored flow run's shape (see `FlowRunHeader`): a snapshot of any other version
 * is refused (`snapshot_version`).
 */
export const FLOW_SNAPSHOT_VERSION = 1;

/** Where a flow run stands, as its snapshot records it. */
export type FlowRunStatus = 'running' | 'completed' | 'failed' | 'aborted' | 'paused';

/** A step run completed in the round in progress. */
export interface SnapshotStepRun {
  nodeId: string;
  step: string;
  run: number;
  /** A human or wait step that timed out (it emitted its `onTimeout` label). */
  timedOut?: boolean;
}

/** A human's answer to a waiting step (`step` may be left out when only one waits). */
export interface HumanAnswer {
  step: string;
  route: string;
  feedback: unknown;
}

/**
 * What completes a waiting step: a human's answer, a signal of the event a wait step waits for, or
 * its time running out.
 */
export type StepAnswer =
  | ({ kind: 'human' } & HumanAnswer)
  | { kind: 'signal'; step: string; event: string; payload: unknown }
  | { kind: 'timeout'; step: string }
  | CrewStepAnswer
  | FlowStepAnswer;

/**
 * What a resume or signal of a parent brings a flow step's paused child run: the step runs again, and
 * its child run goes on with `request` (checked against the child's waits already).
 */
export interface FlowStepAnswer {
  kind: 'flow';
  step: string;
  nodeId: string;
  /** The child run: `<parent id>/<node id>`. */
  runId: string;
  request: ChildRequest;
}

/** What a child run is resumed with: an answer (a human's, a crew's, or none: its due timeouts), or a signal. */
export type ChildRequest =
  | { kind: 'answer'; answer: unknown }
  | { kind: 'signal'; event: string; payload: unknown };

/** Answers to what the paused crew run of a step waits for: the step runs again and its crew goes on. */
export interface CrewStepAnswer {
  kind: 'crew';
  step: string;
  nodeId: string;
  executionId: string;
  approvals: Record<string, ApprovalAnswer>;
  reviews: Record<string, ReviewAnswer>;
}

/**
 * A flow run as its store keeps it (`flow_runs`, key `run`), written when the run starts and after
 * every step: enough, with the definition, to go on in another process. The round in progress is
 * rebuilt from `rounds` (what each completed round emitted: the round semantics are deterministic),
 * minus the step runs in `done`, which do not run again.
 */
export interface FlowSnapshot {
  version: number;
  flow: string;
  id: string;
  status: FlowRunStatus;
  state: unknown;
  inputs: unknown;
  /** Every completed round, in order. */
  rounds: SnapshotRound[];
  /** The step runs that completed in the round in progress. */
  done: SnapshotStepRun[];
  /** The steps a paused run waits for. */
  pending: PendingStep[];
  /** The wake time of each sleep step run that started, by node id (epoch ms on the run's clock). */
  sleeps: Record<string, number>;
  trail: string[];
  /** Every completed step's latest output, by step name. */
  outputs: Record<string, unknown>;
  emitted: string[];
  errors: Record<string, string>;
  failures: Record<string, Failure>;
  /** When this snapshot was written, in epoch ms (the run's clock). */
  updatedAt: number;
}

/** What `flow.getRun(id)` tells about a stored run. */
export interface FlowRunInfo {
  id: string;
  flow: string;
  status: FlowRunStatus;
  /** The first step a paused run waits for. */
  pending?: PendingStep;
  /** Every step a paused run waits for. */
  waiting?: PendingStep[];
  state: unknown;
  trail: string[];
  outputs: Record<string, unknown>;
  updatedAt: number;
  /** A fork (`flow.fork`): the run and checkpoint it was forked from. */
  forkedFrom?: RunLineage;
}

/** The public view of a snapshot (with the lineage its head keeps, for a fork). */
export function runInfo(snapshot: FlowSnapshot, lineage?: RunLineage): FlowRunInfo {
  const { id, flow, status, state, trail, outputs, updatedAt } = snapshot;
  const info: FlowRunInfo = { id, flow, status, state, trail, outputs, updatedAt };
  if (lineage !== undefined) info.forkedFrom = lineage;
  const pending = snapshot.pending?.[0];
  if (pending !== undefined) {
    info.pending = pending;
    info.waiting = [...snapshot.pending];
  }
  return info;
}
