import { type Actor, type AnyActorRef, createActor } from 'xstate';
import { type AgentExecutor, agentActorLogic } from '../../actors/agent-actor.js';
import type { ConsultOutcome, ConsultRequest } from '../../actors/consult.js';
import { InternalError } from '../../errors.js';
import {
  type AttemptOutcome,
  type LifecycleEffects,
  type LifecycleEmitted,
  lifecycleMachine,
  startedLifecycleMachine,
} from '../../machines/lifecycle.js';
import { retryDelay } from '../engine/backoff.js';
import type { Clock } from '../engine/clock.js';
import { WorkQueue } from './work-queue.js';

/** What every node run needs: its id, how many attempts it may take and the backoff between them. */
export interface NodeRunSpec {
  nodeId: string;
  maxAttempts: number;
  /** Delay before the first retry, in ms (doubled per attempt, jittered; `retry-after` wins). */
  retryDelayMs: number;
}

/** Who runs a node's work: one actor per distinct `key` in a run (an agent; a flow's one executor). */
export interface NodeWorker {
  key: unknown;
  /** The actor's id, as an inspector shows it (an agent's role). */
  name: string;
}

/** An actor a supervisor asks besides its node runs' agents: a manager, a judge. */
export interface Advisor {
  /** Its actor's id, as an inspector shows it. */
  name: string;
  /** Its system id: where the supervisor sends its requests. */
  systemId: string;
  executor: AgentExecutor;
}

/** What a kind of node (task, flow step) plugs into the runner. */
export interface NodeKind<TSpec extends NodeRunSpec> {
  /** Whose actor runs the node's attempts. */
  workerOf(spec: TSpec): NodeWorker;
  /**
   * One attempt of a live node, run by its worker's actor: resolves with its outcome; rejects only
   * when `signal` aborts. `self` is the node's run actor (a crew started inside a step is its child).
   */
  attempt(spec: TSpec, attempt: number, signal: AbortSignal, self: AnyActorRef): Promise<AttemptOutcome>;
  /** Publishes one lifecycle transition of a run (`spec` is undefined for a run that was blocked). */
  publish(emitted: LifecycleEmitted, spec: TSpec | undefined): void;
  /** Holds a conversation a coworker asked an agent for (delegation); absent: agents take none. */
  consult?(request: ConsultRequest, signal: AbortSignal): Promise<ConsultOutcome>;
}

type LifecycleActor = Actor<typeof startedLifecycleMachine>;

/**
 * Where the number of runners made in this process lives: each names its worker actors' system ids
 * after it, and a run of one copy of the package may join the actor system of a run of another (a
 * flow's step kicking off a crew built with another copy), so every copy counts on `globalThis`.
 */
const RUNNERS_MADE = Symbol.for('statecrew.runnersMade.v1');

/** The next runner's key, unique in this process across copies of the package. */
function nextRunnerKey(): string {
  const host = globalThis as { [RUNNERS_MADE]?: number };
  host[RUNNERS_MADE] = (host[RUNNERS_MADE] ?? 0) + 1;
  return `runner-${host[RUNNERS_MADE]}`;
}

/**
 * Stops the worker actor of a run that ended. Only an actor's parent may stop it (`stopChild`), and
 * the parent, the run's supervisor, is done by now: this does what `stopChild` does — the actor's own
 * stop, which runs its cleanup and leaves its actor system.
 */
function stopEndedWorker(actor: AnyActorRef): void {
  (actor as unknown as { _stop(): void })._stop();
}

/**
 * Runs node runs as lifecycle actors for one supervisor, and one worker actor per agent that runs
 * their attempts: a run asks its agent's actor for each attempt (`WORK`) and hears the outcome back
 * (`WORK.DONE`); no actor is created per attempt. Every actor is created with the supervisor as
 * `parent`: it joins the supervisor's actor system (an inspector sees it and its parent) without
 * entering the supervisor's `children` map, whose copy-on-spawn would make a run quadratic. The price:
 * only the supervisor can stop such an actor (`stopChild`), so the runner hands runs over in its
 * events: `NODE.COMPLETED` when a run completed, `NODE.FAILED` when an attempt failed, and every live
 * actor on abort. A retry waits out its backoff on the run's clock.
 */
export class NodeRunner<TSpec extends NodeRunSpec> {
  readonly #specs = new Map<string, TSpec>();
  readonly #live = new Map<string, LifecycleActor>();
  /** Backoff of the next attempt of each run whose failed attempt will be retried. */
  readonly #delays = new Map<string, number>();
  readonly #timers = new Map<string, unknown>();
  /** The system id of each worker's actor, by worker key. */
  readonly #workers = new Map<unknown, string>();
  /** Each worker's actor, by its system id. */
  readonly #workerRefs = new Map<string, AnyActorRef>();
  readonly #workerActors: AnyActorRef[] = [];
  readonly #executor: AgentExecutor;
  /**
   * Unique in the process (so in any actor system): the prefix of the system ids of its worker
   * actors, and of its supervisor's advisors (`<key>:manager`).
   */
  readonly key: string;
  /** The supervisor the runs belong to (one per runner). */
  supervisor: AnyActorRef | undefined;
  /** Work asked for by a supervisor's actions, run once its transition is over (see `flush`). */
  readonly #queue = new WorkQueue();
  /** Set once the runs were handed over (abort) or the run ended: nothing starts any more. */
  #ended = false;
  /** Set once the run ended: its actors' reports are heard no more. */
  #disposed = false;
  /** Set once the run is being suspended: no run starts or retries, the live ones may settle. */
  #draining = false;
  /** The runs with an attempt under way, by node id. */
  readonly #inFlight = new Set<string>();
  /** Resolved once no attempt is under way (see `whenQuiet`). */
  #quiet: (() => void)[] = [];
  /**
   * What its lifecycle actors get as their effects: a plain object (an inspector serializing their
   * context finds nothing of the run in it).
   */
  readonly #effects: LifecycleEffects = { report: (emitted) => this.report(emitted) };

  constructor(
    private readonly hooks: NodeKind<TSpec>,
    private readonly clock: Clock,
    /** Seeds the backoff jitter: the run's id. */
    private readonly seed: string,
  ) {
    this.key = nextRunnerKey();
    this.#executor = {
      execute: (work, signal) => {
        const spec = this.#specs.get(work.nodeId);
        if (spec === undefined)
          return Promise.reject(
            new InternalError('NodeRunner.execute', `No run "${work.nodeId}" is live`, {
              nodeId: work.nodeId,
            }),
          );
        return hooks.attempt(spec, work.attempt, signal, work.replyTo);
      },
    };
    const { consult } = hooks;
    if (consult !== undefined)
      this.#executor.consult = (request, signal) => consult.call(hooks, request, signal);
  }

  /**
   * Forgets pending work and backoffs once its run ended; its actors report nothing more, and its
   * worker actors stop. A worker is a callback actor that never ends by itself: left running, it would
   * stay registered in its actor system with everything it holds — for a run whose supervisor has a
   * parent (a crew or flow run as a step's child, a map's item), that system is the parent run's, and
   * a map of 10,000 crews would keep every finished crew run alive until its step ended.
   */
  dispose(): void {
    this.#ended = true;
    this.#disposed = true;
    this.#clearTimers();
    this.#queue.clear();
    for (const actor of this.#workerActors.splice(0)) stopEndedWorker(actor);
    this.#workers.clear();
    this.#workerRefs.clear();
  }

  /** A transition of one of this runner's node runs, as its lifecycle reports it. */
  report(emitted: LifecycleEmitted): void {
    if (this.#disposed) return;
    const spec = this.#specs.get(emitted.nodeId);
    if (spec === undefined) {
      // A blocked run: it never started, and only its `node.blocked` is recorded.
      if (emitted.type === 'node.blocked') this.hooks.publish(emitted, undefined);
      return;
    }
    this.#settle(spec, emitted);
  }

  /**
   * Runs the work that supervisor actions asked for, in order. Supervisors call the runner from their
   * actions, while XState is still inside their transition; creating and driving other actors from
   * there would nest their transitions inside it, so the run calls `flush` from an observer of the
   * supervisor, right after each of its transitions. The queue yields to the event loop now and then.
   */
  flush(): void {
    this.#queue.flush();
  }

  /** Resolves once the work supervisors asked for has all run (blocked runs recorded, …). */
  whenIdle(): Promise<void> {
    return this.#queue.whenDrained();
  }

  /**
   * Runs `operation` in turn with the runner's other work, once the supervisor's transition is over:
   * a supervisor with many runs to start queues one such operation per run, each of which starts it
   * at once (`startNow`), so the runner yields between them. A heavier operation counts for
   * `operations` of the turn's share.
   */
  schedule(operation: () => void, operations = 1): void {
    if (!this.#ended) this.#queue.push(operation, operations);
  }

  /**
   * Starts no run and no retry any more (a graceful stop): the attempts under way may settle, their
   * commits land. Backoffs waiting for a retry are dropped.
   */
  drain(): void {
    this.#draining = true;
    this.#clearTimers();
    this.#checkQuiet();
  }

  /** The node ids of the runs with an attempt under way. */
  inFlight(): string[] {
    return [...this.#inFlight];
  }

  /** Resolves once no attempt is under way (at once when none is). */
  whenQuiet(): Promise<void> {
    if (this.#inFlight.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#quiet.push(resolve));
  }

  #checkQuiet(): void {
    if (this.#inFlight.size > 0) return;
    for (const resolve of this.#quiet.splice(0)) resolve();
  }

  /** Starts nothing more until `write` settles (it must not reject): see {@link WorkQueue.hold}. */
  hold(write: Promise<unknown>): void {
    this.#queue.hold(write);
  }

  /** Starts a run once the supervisor's transition is over: a new lifecycle actor, in `running`. */
  start(spec: TSpec, supervisor: AnyActorRef): void {
    if (!this.#ended) this.#queue.push(() => this.#start(spec, supervisor));
  }

  /**
   * Starts a run at once. Only for an operation the runner runs (`schedule`): inside a supervisor's
   * transition it would nest the run's transitions in it.
   */
  startNow(spec: TSpec, supervisor: AnyActorRef): void {
    this.#start(spec, supervisor);
  }

  /** Sends a failed run back to `ready`, and to `running` once its backoff has passed. */
  retry(nodeId: string): void {
    if (this.#ended) return;
    this.#queue.push(() => {
      if (this.#draining) return;
      const actor = this.#live.get(nodeId);
      if (actor === undefined)
        throw new InternalError('NodeRunner.retry', `No run "${nodeId}" is live to retry`, { nodeId });
      const delayMs = this.#delays.get(nodeId) ?? 0;
      this.#delays.delete(nodeId);
      actor.send({ type: 'RETRY', delayMs });
      if (delayMs === 0) {
        this.#inFlight.add(nodeId);
        actor.send({ type: 'START', at: this.clock.now() });
        return;
      }
      const timer = this.clock.setTimeout(() => {
        this.#timers.delete(nodeId);
        this.#inFlight.add(nodeId);
        actor.send({ type: 'START', at: this.clock.now() });
      }, delayMs);
      this.#timers.set(nodeId, timer);
    });
  }

  /** Records runs that will never start because `reason` failed: each goes `idle → blocked`. */
  block(nodeIds: readonly string[], reason: string, supervisor: AnyActorRef): void {
    if (this.#ended) return;
    for (const nodeId of nodeIds) {
      this.#queue.push(() => {
        const actor = this.#spawn(nodeId, 1, '', supervisor);
        actor.start();
        actor.send({ type: 'BLOCK', reason });
        // A blocked run is inert (no invoked actor, no timer): it is forgotten, not stopped, and goes
        // with the run's actor system.
        this.#forget(nodeId);
      });
    }
  }

  /**
   * Drops pending work and backoffs and hands over every live run, for the supervisor to stop (abort):
   * an actor created with a parent can only be stopped by that parent's `stopChild`.
   */
  takeAll(): AnyActorRef[] {
    // An abort can come from inside a model call, while an operation of this queue is starting a
    // run: whatever it would queue or start next must not run.
    this.#ended = true;
    this.#queue.clear();
    this.#clearTimers();
    this.#inFlight.clear();
    this.#checkQuiet();
    const actors: AnyActorRef[] = [...this.#live.values(), ...this.#workerActors];
    this.#live.clear();
    this.#workerActors.length = 0;
    this.#workers.clear();
    this.#workerRefs.clear();
    this.#specs.clear();
    this.#delays.clear();
    return actors;
  }

  #clearTimers(): void {
    for (const timer of this.#timers.values()) this.clock.clearTimeout(timer);
    this.#timers.clear();
  }

  #start(spec: TSpec, supervisor: AnyActorRef): void {
    if (this.#ended || this.#draining) return;
    const executor = this.#workerFor(this.hooks.workerOf(spec), supervisor);
    const actor = this.#spawn(spec.nodeId, spec.maxAttempts, executor, supervisor, this.clock.now());
    this.#specs.set(spec.nodeId, spec);
    this.supervisor = supervisor;
    this.#inFlight.add(spec.nodeId);
    actor.start();
  }

  /** Creates an advisor's actor under `supervisor` (before the supervisor starts asking it). */
  addAdvisor(advisor: Advisor, supervisor: AnyActorRef): void {
    this.#startWorker(advisor.name, advisor.systemId, advisor.executor, supervisor);
  }

  #startWorker(name: string, systemId: string, executor: AgentExecutor, supervisor: AnyActorRef): void {
    const actor = createActor(agentActorLogic, {
      id: name,
      systemId,
      parent: supervisor,
      input: { executor },
    });
    actor.start();
    this.#workerActors.push(actor);
    this.#workerRefs.set(systemId, actor);
  }

  /**
   * The actor of `worker` in this run, created on first use (a coworker asked before it ran a task);
   * undefined before any run started or once the runs were handed over.
   */
  actorOf(worker: NodeWorker): AnyActorRef | undefined {
    if (this.#ended || this.supervisor === undefined) return undefined;
    return this.#workerRefs.get(this.#workerFor(worker, this.supervisor));
  }

  /** The system id of the actor that runs `spec`'s work, created on its first use in the run. */
  #workerFor(worker: NodeWorker, supervisor: AnyActorRef): string {
    let systemId = this.#workers.get(worker.key);
    if (systemId === undefined) {
      systemId = `${this.key}:${this.#workers.size + 1}`;
      this.#startWorker(worker.name, systemId, this.#executor, supervisor);
      this.#workers.set(worker.key, systemId);
    }
    return systemId;
  }

  #spawn(
    nodeId: string,
    maxAttempts: number,
    executor: string,
    supervisor: AnyActorRef,
    startAt?: number,
  ): LifecycleActor {
    if (this.#live.has(nodeId))
      throw new InternalError('NodeRunner.spawn', `Run "${nodeId}" is already live`, { nodeId });
    const actor = createActor(startAt === undefined ? lifecycleMachine : startedLifecycleMachine, {
      id: nodeId,
      parent: supervisor,
      input: { effects: this.#effects, nodeId, maxAttempts, executor, startAt },
    });
    this.#live.set(nodeId, actor);
    return actor;
  }

  #forget(nodeId: string): void {
    this.#live.delete(nodeId);
    this.#specs.delete(nodeId);
  }

  /** Publishes a transition; a settled run is forgotten, or its retry's backoff computed. */
  #settle(spec: TSpec, emitted: LifecycleEmitted): void {
    this.hooks.publish(emitted, spec);
    if (
      emitted.type === 'node.completed' ||
      emitted.type === 'node.failed' ||
      emitted.type === 'node.waiting'
    ) {
      this.#inFlight.delete(spec.nodeId);
      this.#checkQuiet();
    }
    if (emitted.type === 'node.completed') {
      this.#forget(spec.nodeId);
      return;
    }
    if (emitted.type !== 'node.failed') return;
    if (emitted.willRetry) {
      const seed = `${this.seed}/${spec.nodeId}/${emitted.attempt}`;
      this.#delays.set(spec.nodeId, retryDelay(spec.retryDelayMs, emitted.attempt, emitted.error, seed));
    } else {
      this.#forget(spec.nodeId);
    }
  }
}
