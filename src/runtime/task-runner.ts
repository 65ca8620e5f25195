import { type Actor, type AnyActorRef, createActor } from 'xstate';
import { type AttemptSpec, fromTaskAttempt, type TaskRunValue } from '../actors/task-attempt.js';
import { type LifecycleEmitted, lifecycleMachine } from '../machines/lifecycle.js';
import type { NodeSettledEvent } from '../machines/settled.js';
import type { EventHub } from './event-hub.js';

/** A task run to start: what its attempts need, and how many attempts it may take. */
export interface TaskRunSpec extends AttemptSpec {
  maxAttempts: number;
}

function createLifecycleLogic(specs: ReadonlyMap<string, AttemptSpec>, hub: EventHub) {
  const work = fromTaskAttempt(
    (nodeId) => {
      const spec = specs.get(nodeId);
      if (spec === undefined) throw new Error(`No task run "${nodeId}" is live`);
      return spec;
    },
    {
      now: hub.now,
      onModelCall: (nodeId, attempt, usage, durationMs) =>
        hub.emit({ type: 'model.call', nodeId, attempt, usage, durationMs }),
      onToolCall: (nodeId, call) => hub.emit({ type: 'tool.call', nodeId, call }),
    },
  );
  return lifecycleMachine.provide({ actors: { work } });
}

type LifecycleActor = Actor<ReturnType<typeof createLifecycleLogic>>;

/**
 * Runs task runs as lifecycle actors for one crew run. Each actor is created with its supervisor as
 * `parent`: it joins the supervisor's actor system (an inspector sees it and its parent) without
 * entering the supervisor's `children` map, whose copy-on-spawn would make a run quadratic. The price:
 * only the supervisor can stop such an actor (`stopChild`), so the runner hands live runs over in
 * its events. Lifecycle transitions become run events; a failed attempt notifies the supervisor, and a
 * completed run reaches it as XState's done event.
 */
export class TaskRunner {
  readonly #specs = new Map<string, TaskRunSpec>();
  readonly #live = new Map<string, LifecycleActor>();
  readonly #logic: ReturnType<typeof createLifecycleLogic>;
  /** Work asked for by a supervisor's actions, run once its transition is over (see `flush`). */
  readonly #pending: (() => void)[] = [];
  #flushing = false;

  constructor(private readonly hub: EventHub) {
    this.#logic = createLifecycleLogic(this.#specs, hub);
  }

  /**
   * Runs the work that supervisor actions asked for, in order. Supervisors call the runner from their
   * actions, while XState is still inside their transition; creating and driving other actors from
   * there would nest their transitions inside it, so the run calls `flush` from an observer of the
   * supervisor, right after each of its transitions.
   */
  flush(): void {
    if (this.#flushing) return;
    this.#flushing = true;
    try {
      for (let i = 0; i < this.#pending.length; i += 1) (this.#pending[i] as () => void)();
    } finally {
      this.#pending.length = 0;
      this.#flushing = false;
    }
  }

  /** Starts a run of a task: a new lifecycle actor taken through `ready` to `running`. */
  start(spec: TaskRunSpec, supervisor: AnyActorRef): void {
    this.#pending.push(() => this.#start(spec, supervisor));
  }

  /** Sends a failed run back through `ready` to `running` for another attempt. */
  retry(nodeId: string): void {
    this.#pending.push(() => this.#retry(nodeId));
  }

  /** Records runs that will never start because `reason` failed: each goes `idle → blocked`. */
  block(nodeIds: readonly string[], reason: string, supervisor: AnyActorRef): void {
    this.#pending.push(() => this.#block(nodeIds, reason, supervisor));
  }

  #start(spec: TaskRunSpec, supervisor: AnyActorRef): void {
    const actor = this.#spawn(spec.nodeId, spec.maxAttempts, supervisor);
    this.#specs.set(spec.nodeId, spec);
    actor.on('*', (emitted) => this.#forward(spec, emitted, supervisor));
    actor.start();
    actor.send({ type: 'READY' });
    actor.send({ type: 'START', at: this.hub.now() });
  }

  #retry(nodeId: string): void {
    const actor = this.#live.get(nodeId);
    if (actor === undefined) throw new Error(`No task run "${nodeId}" is live to retry`);
    actor.send({ type: 'RETRY' });
    actor.send({ type: 'START', at: this.hub.now() });
  }

  #block(nodeIds: readonly string[], reason: string, supervisor: AnyActorRef): void {
    for (const nodeId of nodeIds) {
      const actor = this.#spawn(nodeId, 1, supervisor);
      actor.on('node.blocked', (emitted) => this.hub.emit(emitted));
      actor.start();
      actor.send({ type: 'BLOCK', reason });
      // A blocked run is inert (no invoked actor, no timer): it is forgotten, not stopped, and goes
      // with the run's actor system.
      this.#forget(nodeId);
    }
  }

  /**
   * Drops pending work and hands over every live run, for the supervisor to stop (abort): an actor
   * created with a parent can only be stopped by that parent's `stopChild`.
   */
  takeAll(): AnyActorRef[] {
    this.#pending.length = 0;
    const actors = [...this.#live.values()];
    this.#live.clear();
    this.#specs.clear();
    return actors;
  }

  #spawn(nodeId: string, maxAttempts: number, supervisor: AnyActorRef): LifecycleActor {
    if (this.#live.has(nodeId)) throw new Error(`Task run "${nodeId}" is already live`);
    const actor = createActor(this.#logic, {
      id: nodeId,
      parent: supervisor,
      input: { nodeId, maxAttempts },
    });
    this.#live.set(nodeId, actor);
    return actor;
  }

  #forget(nodeId: string): void {
    this.#live.delete(nodeId);
    this.#specs.delete(nodeId);
  }

  #forward(spec: TaskRunSpec, emitted: LifecycleEmitted, supervisor: AnyActorRef): void {
    switch (emitted.type) {
      case 'node.started':
        this.hub.emit({ ...emitted, name: spec.name, agent: spec.agent.role });
        return;
      case 'node.completed': {
        const value = emitted.output as TaskRunValue;
        this.#forget(spec.nodeId);
        this.hub.emit({
          type: 'node.completed',
          nodeId: spec.nodeId,
          attempts: emitted.attempts,
          durationMs: emitted.durationMs,
          output: {
            name: spec.name,
            description: spec.description,
            expectedOutput: spec.expectedOutput,
            agent: spec.agent.role,
            ...value,
          },
        });
        return;
      }
      case 'node.failed': {
        const { error, ...rest } = emitted;
        const failure = error.code === undefined ? {} : { code: error.code };
        this.hub.emit({ ...rest, error: error.message, ...failure });
        const run = this.#live.get(spec.nodeId);
        if (run === undefined) return;
        if (!emitted.willRetry) this.#forget(spec.nodeId);
        supervisor.send({
          type: 'NODE.FAILED',
          nodeId: spec.nodeId,
          willRetry: emitted.willRetry,
          run,
        } satisfies NodeSettledEvent);
        return;
      }
      default:
        this.hub.emit(emitted);
    }
  }
}
