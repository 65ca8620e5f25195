import type { AnyActorRef } from 'xstate';
import {
  createFlowMachine,
  type FlowMachine,
  type FlowMachineOutput,
} from '../../machines/flow/flow-machine.js';
import type { RunLineage } from '../../types.js';
import type { FlowDefinition } from './definition.js';
import { checkKickoff } from './flow-kickoff.js';
import type { FlowOutput, FlowRun } from './flow-output.js';
import type { FlowRunOptions } from './flow-run-options.js';
import { type FlowRunParts, type FlowRunSeed, type ParentLink, wireFlowRun } from './flow-run-parts.js';

/** Where a child flow run (a flow step's) sits: under its step run's actor, its head naming its parent. */
export interface ChildPlacement {
  parent?: AnyActorRef | undefined;
  link?: ParentLink | undefined;
}

/**
 * Starts one run of a flow. Definition errors (`unknown_trigger`, `no_start`), inputs that are not a
 * plain object or do not fit the state (`invalid_inputs`), unknown forced routers and unforced human
 * steps without a store throw here, before any step runs (see `checkKickoff`).
 */
export function startFlowRun<S>(
  definition: FlowDefinition<S>,
  options: FlowRunOptions & ChildPlacement,
  supervisor: FlowMachine = createFlowMachine(definition),
  seed?: FlowRunSeed,
): FlowRun<S> {
  const kickoff = checkKickoff(definition, options, seed?.resume);
  const parts = wireFlowRun(definition, kickoff, options, seed);
  const input = { effects: parts.driver, resume: seed?.resume?.rounds };
  const { parent } = options as ChildPlacement;
  const placement =
    parent !== undefined ? { parent } : options.inspect === undefined ? {} : { inspect: options.inspect };
  // Under a parent the id becomes the type of the done event the parent gets: keep it free of the run id.
  const actorId = parent === undefined ? `flow:${parts.state.id}` : 'flow';
  const actor = parts.run.supervise(supervisor, input, actorId, placement, parts.runner);
  const result = runFlowToEnd(definition, options, parts, actor, seed?.lineage);
  return { id: parts.state.id, events$: parts.run.events.events$, actor, result };
}

/** Runs the supervisor to its end: the run's result, its claim and first and last writes when it has a store. */
function runFlowToEnd<S>(
  definition: FlowDefinition<S>,
  options: FlowRunOptions,
  parts: FlowRunParts<S>,
  actor: AnyActorRef,
  lineage: RunLineage | undefined,
): Promise<FlowOutput<S>> {
  const { run, runner, records } = parts;
  const startedAt = run.clock.now();
  return run.drive<FlowOutput<S>>({
    supervisor: actor,
    runner,
    signal: options.signal,
    nodes: definition.steps.length,
    name: definition.name,
    process: 'flow',
    startEvent: { type: 'START' },
    complete(machineOutput) {
      const { error } = machineOutput as FlowMachineOutput;
      if (error !== undefined) throw error;
      const status = endStatus(actor);
      const out = flowOutput(parts, status, startedAt, lineage, options.thread);
      return { result: out, status, totalTimeMs: out.totalTimeMs };
    },
    partial: () => flowOutput(parts, 'failed', startedAt, lineage, options.thread),
    // Stored as aborted, to be resumed like a run whose process died; the rejection waits for the
    // write. Only once the run holds its id: an abort before the claim landed must not touch another run.
    keepAborted: async () => {
      if (records !== undefined && run.holdsId) await records.finish('aborted').catch(() => {});
    },
    ...(records === undefined
      ? {}
      : {
          afterClaim: () => {
            records.first();
            return run.write();
          },
          finish: (out: FlowOutput<S>) => records.finish(out.status),
        }),
  });
}

/** How a run whose machine ended without an error ended: failed, paused for steps that wait, or completed. */
function endStatus(actor: AnyActorRef): FlowOutput<unknown>['status'] {
  const { value } = actor.getSnapshot();
  return value === 'failed' ? 'failed' : value === 'paused' ? 'paused' : 'completed';
}

/** The run's result with `status`, from what its recorder holds now. */
function flowOutput<S>(
  parts: FlowRunParts<S>,
  status: FlowOutput<S>['status'],
  startedAt: number,
  lineage: RunLineage | undefined,
  thread: string | undefined,
): FlowOutput<S> {
  const { recorder } = parts;
  const out: FlowOutput<S> = {
    id: parts.run.id,
    state: parts.state,
    output: recorder.lastOutput,
    trail: [...recorder.trail],
    outputs: Object.fromEntries(recorder.outputs),
    emitted: [...recorder.emitted],
    status,
    errors: { ...recorder.errors },
    failures: { ...recorder.failures },
    totalTimeMs: parts.run.clock.now() - startedAt,
  };
  if (thread !== undefined) out.thread = thread;
  const waiting = parts.driver.waiting();
  if (status === 'paused' && waiting[0] !== undefined) {
    out.pending = waiting[0];
    if (waiting.length > 1) out.waiting = waiting;
  }
  if (lineage !== undefined) out.forkedFrom = lineage;
  return out;
}
