import { type AnyActorRef, assign, type ErrorActorEvent, sendTo, setup } from 'xstate';
import type { Failure, WaitingFor } from '../types.js';

/** Why a work attempt failed, in a form that survives JSON (an Error does not). */
export interface NodeFailure extends Failure {
  /** How long the provider asked to wait before the next attempt (its `retry-after`), in ms. */
  retryAfterMs?: number;
}

/**
 * What a node run waits for: what its `node.waiting` event tells (`waitingFor`), and what its run
 * keeps to go on once the wait is over (`keep`: a conversation's pause, a flow step's pending answer),
 * as plain data.
 */
export interface NodeWait {
  waitingFor: WaitingFor;
  keep?: unknown;
}

/** How one attempt's work ended, as its executor reports it. */
export type WorkOutcome =
  /** `label`: the label the work chose, for a supervisor that routes on it (a flow router's). */
  | { ok: true; output: unknown; finishedAt: number; label?: string | undefined }
  /** `cause`: what was thrown, for a supervisor that rejects the run with it (in-process only). */
  | { ok: false; error: NodeFailure; finishedAt: number; cause?: unknown };

/** What a lifecycle actor asks of its run: to hear of each of its transitions. */
export interface LifecycleEffects {
  /** Hears one transition of the node run (records it, publishes it), as it happens. */
  report(emitted: LifecycleEmitted): void;
}

/** An attempt that ended waiting (for a human's approval or review, a crew it ran): the node waits. */
export interface WaitOutcome {
  waiting: NodeWait;
  finishedAt: number;
}

/** How one attempt ended: its work's outcome, or a wait. */
export type AttemptOutcome = WorkOutcome | WaitOutcome;

/** Whether an attempt ended waiting. */
export function isWait(outcome: AttemptOutcome): outcome is WaitOutcome {
  return 'waiting' in outcome;
}

/**
 * What a supervisor hears from its task runs: `NODE.COMPLETED` when a run completed, `NODE.FAILED`
 * when an attempt failed (failed is not final: it may be retried), `NODE.WAITING` when it waits, and
 * XState's error event when a run crashed. Event types never carry a node id: XState caches transitions per event type on the
 * supervisor machine, which lives as long as the process. Runs are created with the supervisor as
 * `parent` but outside its `children` map, so only the supervisor can stop them: the events carry the
 * refs for its `stopChild`.
 */
export type NodeSettledEvent =
  /** `label`: the label the run's work chose (a flow router's route), if it chose one. */
  | { type: 'NODE.COMPLETED'; nodeId: string; run: AnyActorRef; label?: string | undefined }
  | ErrorActorEvent<unknown>
  | { type: 'NODE.FAILED'; nodeId: string; willRetry: boolean; run: AnyActorRef }
  /**
   * The run waits (for an approval, a review, a crew of a flow step…): it is not a failure, but like
   * one that is final it ends what the run can do now (a sleep aside: its work goes on).
   */
  | { type: 'NODE.WAITING'; nodeId: string; run: AnyActorRef; waiting: NodeWait };

/** Asks a supervisor to stop: `runs` are the task runs in flight, which only it can stop. */
export interface AbortEvent {
  type: 'ABORT';
  runs: readonly AnyActorRef[];
}

/** Input of a lifecycle actor. */
export interface LifecycleInput {
  /** Its run's effects. */
  effects: LifecycleEffects;
  nodeId: string;
  /** Attempts allowed in total, at least 1. */
  maxAttempts: number;
  /** The system id of the actor that runs this node's work (its agent's actor, a flow's executor). */
  executor: string;
  /** When the first attempt starts, for {@link startedLifecycleMachine} (which starts in `running`). */
  startAt?: number | undefined;
}

/** Context of a lifecycle actor: the node's attempts and timing. */
export interface LifecycleContext {
  effects: LifecycleEffects;
  nodeId: string;
  maxAttempts: number;
  executor: string;
  attempts: number;
  startedAt: number | undefined;
  durationMs: number | undefined;
  output: unknown;
  /** The label its completed work chose (a flow router's route), if it chose one. */
  label: string | undefined;
  /** What it waits for, while it waits. */
  waiting: NodeWait | undefined;
  error: NodeFailure | undefined;
  blockedBy: string | undefined;
}

/** Events a lifecycle actor accepts: from its supervisor, and the outcome of its work from its executor. */
export type LifecycleEvent =
  | { type: 'READY' }
  /** From `idle` or `ready`: to `running` (from `idle` announcing `node.ready` on the way). */
  | { type: 'START'; at: number }
  /** Back to `ready` for another attempt, which the supervisor starts after `delayMs` (its backoff). */
  | { type: 'RETRY'; delayMs: number }
  | { type: 'BLOCK'; reason: string }
  | { type: 'UNBLOCK' }
  | { type: 'WORK.DONE'; attempt: number; outcome: WorkOutcome }
  /**
   * The attempt waits: it ended waiting for outside input (an approval, a review, a crew it ran), or
   * its work goes on until a time (a sleep), after which `WORK.DONE` comes.
   */
  | { type: 'WORK.WAITING'; attempt: number; waiting: NodeWait; at: number };

/** What a lifecycle actor sends its executor when an attempt starts (`requestWork`). */
export interface WorkRequest {
  type: 'WORK';
  nodeId: string;
  attempt: number;
}

/** How a run settled, as its `settle` action tells the supervisor: completed, an attempt failed, or it waits. */
export type LifecycleSettled =
  | { completed: true }
  | { completed: false; willRetry: boolean }
  | { completed: false; waiting: NodeWait };

/** Events a lifecycle actor emits (see `actor.on`), one per transition. */
export type LifecycleEmitted =
  | { type: 'node.ready'; nodeId: string }
  | { type: 'node.started'; nodeId: string; attempt: number }
  | {
      type: 'node.completed';
      nodeId: string;
      attempts: number;
      startedAt: number;
      durationMs: number;
      output: unknown;
    }
  | {
      type: 'node.failed';
      nodeId: string;
      attempt: number;
      durationMs: number;
      error: NodeFailure;
      willRetry: boolean;
    }
  | { type: 'node.retrying'; nodeId: string; attempt: number; delayMs: number }
  | { type: 'node.waiting'; nodeId: string; attempt: number; waiting: NodeWait }
  | { type: 'node.blocked'; nodeId: string; reason: string };

const canRetry = (context: LifecycleContext): boolean =>
  context.attempts < context.maxAttempts && context.error?.retryable === true;

const beginAttempt = (context: LifecycleContext, at: number) => ({
  attempts: context.attempts + 1,
  startedAt: context.startedAt ?? at,
});

const duration = (context: LifecycleContext, outcome: WorkOutcome) =>
  outcome.finishedAt - (context.startedAt ?? outcome.finishedAt);

/** What the supervisor hears when a run settled as `settled` says. */
function settledEvent(
  context: LifecycleContext,
  self: AnyActorRef,
  settled: LifecycleSettled,
): NodeSettledEvent {
  const { nodeId } = context;
  if (settled.completed) return { type: 'NODE.COMPLETED', nodeId, run: self, label: context.label };
  if ('waiting' in settled) return { type: 'NODE.WAITING', nodeId, run: self, waiting: settled.waiting };
  return { type: 'NODE.FAILED', nodeId, willRetry: settled.willRetry, run: self };
}

const lifecycleSetup = setup({
  types: {
    context: {} as LifecycleContext,
    input: {} as LifecycleInput,
    events: {} as LifecycleEvent,
    emitted: {} as LifecycleEmitted,
  },
  actions: {
    /**
     * Sends the executor (the actor of that system id: the node's agent, a flow's steps) the attempt's
     * `WORK` request; it answers with `WORK.DONE`.
     */
    requestWork: sendTo(
      ({ system, context }) => system.get(context.executor) as AnyActorRef,
      ({ context, self }, _params: { nodeId: string; attempt: number }) => ({
        type: 'WORK',
        nodeId: context.nodeId,
        attempt: context.attempts,
        replyTo: self,
      }),
    ),
    /** Reports a transition to the run's effects, which record and publish it. */
    report: ({ context }, emitted: LifecycleEmitted) => context.effects.report(emitted),
    /**
     * Tells the supervisor (the actor's parent) that the run completed or an attempt failed, after the
     * transition (`NODE.COMPLETED`, `NODE.FAILED`): a builtin send, so the supervisor hears of it
     * once this transition is over, not inside it (or that it waits: `NODE.WAITING`).
     */
    settle: sendTo(
      // An actor without a parent tells itself, which takes no such event.
      ({ self }) => self._parent ?? self,
      ({ context, self }, settled: LifecycleSettled) => settledEvent(context, self, settled),
    ),
  },
  guards: {
    canRetry: ({ context }) => canRetry(context),
    /** The outcome is of the current attempt (a late one of an earlier attempt is ignored). */
    current: ({ context, event }) =>
      (event.type === 'WORK.DONE' || event.type === 'WORK.WAITING') && event.attempt === context.attempts,
    /** The current attempt succeeded. */
    succeeded: ({ context, event }) =>
      event.type === 'WORK.DONE' && event.outcome.ok && event.attempt === context.attempts,
  },
});

const initialContext = (input: LifecycleInput): LifecycleContext => ({
  effects: input.effects,
  nodeId: input.nodeId,
  maxAttempts: input.maxAttempts,
  executor: input.executor,
  attempts: 0,
  startedAt: undefined,
  durationMs: undefined,
  output: undefined,
  label: undefined,
  waiting: undefined,
  error: undefined,
  blockedBy: undefined,
});

/** Reports `node.ready`: entering `ready`, or on the way from `idle` to `running`. */
const reportReady = {
  type: 'report',
  params: ({ context }: { context: LifecycleContext }): LifecycleEmitted => ({
    type: 'node.ready',
    nodeId: context.nodeId,
  }),
} as const;

/** The current attempt's outcome, in `running` or `waiting`: completed, or failed (a late one is ignored). */
const workDone = lifecycleSetup.createStateConfig({
  on: {
    'WORK.DONE': [
      {
        guard: 'succeeded',
        target: '#lifecycle.completed',
        actions: assign(({ context, event: { outcome } }) => ({
          output: outcome.ok ? outcome.output : undefined,
          label: outcome.ok ? outcome.label : undefined,
          waiting: undefined,
          durationMs: duration(context, outcome),
        })),
      },
      {
        guard: 'current',
        target: '#lifecycle.failed',
        actions: assign(({ context, event: { outcome } }) => ({
          error: outcome.ok ? undefined : outcome.error,
          waiting: undefined,
          durationMs: duration(context, outcome),
        })),
      },
    ],
  },
}).on?.['WORK.DONE'];

/** The states of every node run's lifecycle; {@link lifecycleMachine} documents them. */
const lifecycleStates = lifecycleSetup.createStateConfig({
  states: {
    idle: {
      on: {
        READY: 'ready',
        // Straight on to running: `ready` is announced, but nothing could observe the node in it.
        START: {
          target: 'running',
          actions: [reportReady, assign(({ context, event }) => beginAttempt(context, event.at))],
        },
        BLOCK: { target: 'blocked', actions: assign({ blockedBy: ({ event }) => event.reason }) },
      },
    },
    ready: {
      entry: reportReady,
      on: {
        START: {
          target: 'running',
          actions: assign(({ context, event }) => beginAttempt(context, event.at)),
        },
        BLOCK: { target: 'blocked', actions: assign({ blockedBy: ({ event }) => event.reason }) },
      },
    },
    running: {
      entry: [
        {
          type: 'report',
          params: ({ context }) => ({
            type: 'node.started',
            nodeId: context.nodeId,
            attempt: context.attempts,
          }),
        },
        {
          type: 'requestWork',
          params: ({ context }) => ({ nodeId: context.nodeId, attempt: context.attempts }),
        },
      ],
      on: {
        'WORK.WAITING': {
          guard: 'current',
          target: 'waiting',
          actions: assign({ waiting: ({ event }) => event.waiting }),
        },
        'WORK.DONE': workDone,
      },
    },
    // It waits: for outside input (its run pauses, and goes on in a new run of it), or until a time
    // (its work goes on, and its `WORK.DONE` ends it as in `running`).
    waiting: {
      entry: [
        {
          type: 'report',
          params: ({ context }) => ({
            type: 'node.waiting',
            nodeId: context.nodeId,
            attempt: context.attempts,
            waiting: context.waiting as NodeWait,
          }),
        },
        {
          type: 'settle',
          params: ({ context }) => ({ completed: false, waiting: context.waiting as NodeWait }),
        },
      ],
      on: { 'WORK.DONE': workDone },
    },
    // Terminal but not final on purpose: a final child sends its parent `xstate.done.actor.<id>`, an
    // event type per node id, and XState caches transitions per event type on the (module-level)
    // supervisor machine forever. `settle` reports completion as `NODE.COMPLETED` instead, and the
    // supervisor stops the run.
    completed: {
      entry: [
        {
          type: 'report',
          params: ({ context }) => ({
            type: 'node.completed',
            nodeId: context.nodeId,
            attempts: context.attempts,
            startedAt: context.startedAt ?? 0,
            durationMs: context.durationMs ?? 0,
            output: context.output,
          }),
        },
        { type: 'settle', params: { completed: true } },
      ],
    },
    failed: {
      entry: [
        {
          type: 'report',
          params: ({ context }) => ({
            type: 'node.failed',
            nodeId: context.nodeId,
            attempt: context.attempts,
            durationMs: context.durationMs ?? 0,
            error: context.error ?? { message: 'unknown failure', retryable: false },
            willRetry: canRetry(context),
          }),
        },
        { type: 'settle', params: ({ context }) => ({ completed: false, willRetry: canRetry(context) }) },
      ],
      on: {
        RETRY: {
          guard: 'canRetry',
          target: 'ready',
          actions: [
            {
              type: 'report',
              params: ({ context, event }) => ({
                type: 'node.retrying',
                nodeId: context.nodeId,
                attempt: context.attempts + 1,
                delayMs: event.delayMs,
              }),
            },
            assign({ error: undefined }),
          ],
        },
      },
    },
    blocked: {
      entry: {
        type: 'report',
        params: ({ context }) => ({
          type: 'node.blocked',
          nodeId: context.nodeId,
          reason: context.blockedBy ?? '',
        }),
      },
      on: { UNBLOCK: { target: 'ready', actions: assign({ blockedBy: undefined }) } },
    },
  },
}).states;

/**
 * The lifecycle of one node run: `idle → ready → running → completed | failed`, `idle | ready → blocked`,
 * `blocked → ready` (unblock) and `failed → ready` (retry, only while attempts remain and the error is
 * retryable). Entering `running` it asks its executor for the attempt's work (`requestWork`: a `WORK`
 * request to the actor of `input.executor`, its agent's) and waits for `WORK.DONE`; no actor is
 * invoked per attempt. Each transition is reported to `input.effects`. `completed`, like `failed` for good and `blocked`, has no way out; the
 * supervisor stops the run once it heard of it.
 *
 * @example
 * const node = createActor(lifecycleMachine, { input: { effects: { report: console.log }, nodeId: 'a', maxAttempts: 1, executor: 'agent' } });
 * node.start(); node.send({ type: 'START', at: Date.now() }); // idle → ready → running in one step
 */
export const lifecycleMachine = lifecycleSetup.createMachine({
  id: 'lifecycle',
  context: ({ input }) => initialContext(input),
  initial: 'idle',
  states: lifecycleStates,
});

/**
 * The same lifecycle for a run its supervisor starts the moment it creates it (every task run but a
 * blocked one): it begins in `running`, its first attempt at `input.startAt`, announcing `node.ready`
 * then `node.started` as a `START` from `idle` would, but without the step through `idle`, which
 * nothing could observe and which costs a fifth of a task run's XState time. Same states, same
 * snapshots: a run restores into either machine.
 */
export const startedLifecycleMachine = lifecycleSetup.createMachine({
  id: 'lifecycle',
  context: ({ input }) => {
    const context = initialContext(input);
    context.attempts = 1;
    context.startedAt = input.startAt ?? 0;
    return context;
  },
  initial: 'running',
  entry: reportReady,
  states: lifecycleStates,
});
