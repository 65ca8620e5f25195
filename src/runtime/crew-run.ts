import type { Observable } from 'rxjs';
import { type ActorOptions, type AnyActorLogic, type AnyActorRef, createActor } from 'xstate';
import type { CrewOutput, StatecrewEvent } from '../types.js';
import type { Agent } from './agent.js';
import { EventHub } from './event-hub.js';
import { attemptsFor, type PlanSource, planCrew } from './plan.js';
import type { CrewDefinition, CrewProcess, CrewRunScope } from './process.js';
import { RunRecorder } from './recorder.js';
import { buildCrewOutput } from './result.js';
import { runToEnd } from './run-to-end.js';
import type { Task } from './task.js';
import { createTaskRunner } from './task-runner.js';

/** Options of one crew run. */
export interface RunOptions {
  /** Values for `{placeholders}` in descriptions, expected outputs and agent personas. @default {} */
  inputs?: Record<string, unknown> | undefined;
  /** Aborting it cancels in-flight model calls and rejects the run with the signal's reason. */
  signal?: AbortSignal | undefined;
  /** An XState inspection observer: it sees the supervisor and every task and agent run actor. */
  inspect?: ActorOptions<AnyActorLogic>['inspect'] | undefined;
  /** The run's execution id. @default a random UUID */
  executionId?: string | undefined;
  /** The clock for timestamps and durations, in epoch milliseconds. @default Date.now */
  clock?: (() => number) | undefined;
  /**
   * Runs the crew's supervisor as a child of this actor, in its actor system (a flow step does this);
   * `inspect` is then the system's.
   */
  parent?: AnyActorRef | undefined;
}

/** A crew run in progress. */
export interface CrewRun {
  /** The execution id. */
  id: string;
  /** Every event of the run, in order; completes when the run ends. Subscribe right after `run()`. */
  events$: Observable<StatecrewEvent>;
  /** The supervisor actor (it starts on the next microtask). */
  actor: AnyActorRef;
  /** Resolves with the result contract; rejects on abort, a configuration error or a manager failure. */
  result: Promise<CrewOutput>;
}

/** What a run needs of its crew. */
export interface RunnableCrew extends PlanSource, CrewDefinition {}

/**
 * Starts one run of `crew` with `process`. Configuration errors throw here, before any call. The
 * supervisor starts on the next microtask, so subscribers attached to `events$` right away see every
 * event.
 */
export function startCrewRun(crew: RunnableCrew, process: CrewProcess, options: RunOptions): CrewRun {
  const { signal } = options;
  signal?.throwIfAborted();
  const plan = planCrew(crew, options.inputs ?? {});
  process.validate(plan);

  const id = options.executionId ?? globalThis.crypto.randomUUID();
  const now = options.clock ?? Date.now;
  const recorder = new RunRecorder();
  const hub = new EventHub(id, now, (event) => recorder.apply(event));
  const runner = createTaskRunner(hub);
  const scope: CrewRunScope = {
    plan,
    runner,
    recorder,
    hub,
    crew,
    startTask(planned, agent: Agent, context, supervisor, nodeId = planned.nodeId) {
      const { task } = planned;
      runner.start(
        {
          nodeId,
          name: planned.nodeId,
          description: planned.description,
          expectedOutput: planned.expectedOutput,
          context,
          agent,
          outputSchema: task.outputSchema,
          guardrail: task.guardrail,
          timeoutMs: task.timeoutMs ?? agent.timeoutMs,
          maxAttempts: attemptsFor(task, agent),
        },
        supervisor,
      );
    },
    block(nodeIds, reason, supervisor: AnyActorRef) {
      runner.block(nodeIds, reason, supervisor);
    },
  };

  const { logic, input, finish, dispose } = process.supervisor(scope);
  const actor = createActor(logic, {
    input,
    id: `${process.kind}:${id}`,
    ...(options.parent !== undefined
      ? { parent: options.parent }
      : options.inspect === undefined
        ? {}
        : { inspect: options.inspect }),
  });
  actor.subscribe({ next: () => runner.flush(), error: () => {} });
  const startedAt = now();

  const result = runToEnd<CrewOutput>({
    supervisor: actor,
    hub,
    runner,
    signal,
    nodes: plan.tasks.length,
    process: process.kind,
    complete(output) {
      const out = buildCrewOutput(recorder, finish(output), {
        executionId: id,
        process: process.kind,
        totalTimeMs: now() - startedAt,
        nodeIdOf: (task) => crew.nodeIdOf(task as Task),
      });
      return { result: out, status: out.status, totalTimeMs: out.totalTimeMs };
    },
    release: dispose,
  });

  return { id, events$: hub.events$, actor, result };
}
