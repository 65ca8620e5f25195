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
 * entering the supervisor's `children` map, whose copy-on-spawn would make a run quadratic. The runner
 * therefore stops what it started. Lifecycle transitions become run events; settling notifies the
 * supervisor.
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
      this.#release(nodeId);
    }
  }

  /** Drops pending work and stops every run still live (on abort, and when the run ends). */
  stopAll(): void {
    this.#pending.length = 0;
    for (const nodeId of [...this.#live.keys()]) this.#release(nodeId);
  }

  #spawn(nodeId: string, maxAttempts: number, supervisor: AnyActorRef): LifecycleActor {
    if (this.#live.has(nodeId)) throw new Error(`Task run "${nodeId}" is already live`);
    const actor = createActor(this.#logic, { id: nodeId, parent: supervisor, input: { nodeId, maxAttempts } });
    this.#live.set(nodeId, actor);
    return actor;
  }

  #release(nodeId: string): void {
    this.#live.get(nodeId)?.stop();
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
        this.#live.delete(spec.nodeId);
        this.#specs.delete(spec.nodeId);
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
        supervisor.send({
          type: 'NODE.FAILED',
          nodeId: spec.nodeId,
          willRetry: emitted.willRetry,
        } satisfies NodeSettledEvent);
        return;
      }
      default:
        this.hub.emit(emitted);
    }
  }
}
