import type { Observable } from 'rxjs';
import { type ActorOptions, type AnyActorLogic, type AnyActorRef, createActor, toPromise } from 'xstate';
import { StatecrewError } from '../errors.js';
import type { CrewOutput, StatecrewEvent } from '../types.js';
import type { Agent } from './agent.js';
import { EventHub } from './event-hub.js';
import { attemptsFor, type PlanSource, planCrew } from './plan.js';
import type { CrewDefinition, CrewProcess, CrewRunScope } from './process.js';
import { RunRecorder } from './recorder.js';
import { buildCrewOutput } from './result.js';
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

  const result = new Promise<CrewOutput>((resolve, reject) => {
    let settled = false;
    const fail = (error: unknown) => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener('abort', onAbort);
      if (actor.getSnapshot().status === 'active') actor.send({ type: 'ABORT', runs: runner.takeAll() });
      const code = error instanceof StatecrewError ? { code: error.code } : {};
      hub.emit({
        type: 'run.failed',
        error: error instanceof Error ? error.message : String(error),
        ...code,
      });
      hub.complete();
      runner.dispose();
      dispose();
      reject(error);
    };
    const onAbort = () => fail(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });

    toPromise(actor).then((output: unknown) => {
      if (settled) return;
      try {
        const summary = finish(output);
        const out = buildCrewOutput(recorder, summary, {
          executionId: id,
          process: process.kind,
          totalTimeMs: now() - startedAt,
          nodeIdOf: (task) => crew.nodeIdOf(task as Task),
        });
        settled = true;
        signal?.removeEventListener('abort', onAbort);
        hub.emit({ type: 'run.completed', status: out.status, totalTimeMs: out.totalTimeMs });
        hub.complete();
        runner.dispose();
        dispose();
        resolve(out);
      } catch (error) {
        fail(error);
      }
    }, fail);

    queueMicrotask(() => {
      if (settled) return;
      hub.emit({ type: 'run.started', process: process.kind, nodes: plan.tasks.length });
      actor.start();
    });
  });

  return { id, events$: hub.events$, actor, result };
}
