import { assign, emit, fromPromise, setup } from 'xstate';
import type { Failure } from '../types.js';

/** Why a work attempt failed, in a form that survives JSON (an Error does not). */
export interface NodeFailure extends Failure {
  /** How long the provider asked to wait before the next attempt (its `retry-after`), in ms. */
  retryAfterMs?: number;
}

/** What the `work` actor of one attempt resolves with. */
export type WorkOutcome =
  | { ok: true; output: unknown; finishedAt: number }
  | { ok: false; error: NodeFailure; finishedAt: number };

/** Input of the `work` actor: which run, which node, which attempt (1-based). */
export interface WorkInput {
  run: string;
  nodeId: string;
  attempt: number;
}

/** Input of a lifecycle actor. */
export interface LifecycleInput {
  /** The key of the run the node belongs to (how the `work` actor finds what to do). */
  run: string;
  nodeId: string;
  /** Attempts allowed in total, at least 1. */
  maxAttempts: number;
}

/** Context of a lifecycle actor: the node's attempts and timing. */
export interface LifecycleContext {
  run: string;
  nodeId: string;
  maxAttempts: number;
  attempts: number;
  startedAt: number | undefined;
  durationMs: number | undefined;
  output: unknown;
  error: NodeFailure | undefined;
  blockedBy: string | undefined;
}

/** Events a lifecycle actor accepts from its supervisor. */
export type LifecycleEvent =
  | { type: 'READY' }
  | { type: 'START'; at: number }
  /** Back to `ready` for another attempt, which the supervisor starts after `delayMs` (its backoff). */
  | { type: 'RETRY'; delayMs: number }
  | { type: 'BLOCK'; reason: string }
  | { type: 'UNBLOCK' };

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
  | { type: 'node.blocked'; nodeId: string; reason: string };

const canRetry = (context: LifecycleContext): boolean =>
  context.attempts < context.maxAttempts && context.error?.retryable === true;

/**
 * The lifecycle of one node run: `idle → ready → running → completed | failed`, `idle | ready → blocked`,
 * `blocked → ready` (unblock) and `failed → ready` (retry, only while attempts remain and the error is
 * retryable). In `running` it invokes the `work` actor, which the runtime provides; any other
 * transition is impossible by construction. `completed`, like `failed` for good and `blocked`, has no
 * way out; the supervisor stops the run once it heard of it.
 *
 * @example
 * const node = createActor(lifecycleMachine.provide({ actors: { work } }), { input: { run: 'r', nodeId: 'n', maxAttempts: 3 } });
 * node.start(); node.send({ type: 'READY' }); node.send({ type: 'START', at: Date.now() });
 */
export const lifecycleMachine = setup({
  types: {
    context: {} as LifecycleContext,
    input: {} as LifecycleInput,
    events: {} as LifecycleEvent,
    emitted: {} as LifecycleEmitted,
  },
  actors: {
    work: fromPromise<WorkOutcome, WorkInput>(async ({ input }) => {
      throw new Error(`No work actor was provided for node "${input.nodeId}"`);
    }),
  },
  guards: {
    canRetry: ({ context }) => canRetry(context),
    succeeded: (_, outcome: WorkOutcome) => outcome.ok,
  },
}).createMachine({
  id: 'lifecycle',
  context: ({ input }) => ({
    run: input.run,
    nodeId: input.nodeId,
    maxAttempts: input.maxAttempts,
    attempts: 0,
    startedAt: undefined,
    durationMs: undefined,
    output: undefined,
    error: undefined,
    blockedBy: undefined,
  }),
  initial: 'idle',
  states: {
    idle: {
      on: {
        READY: 'ready',
        BLOCK: { target: 'blocked', actions: assign({ blockedBy: ({ event }) => event.reason }) },
      },
    },
    ready: {
      entry: emit(({ context }) => ({ type: 'node.ready' as const, nodeId: context.nodeId })),
      on: {
        START: {
          target: 'running',
          actions: assign({
            attempts: ({ context }) => context.attempts + 1,
            startedAt: ({ context, event }) => context.startedAt ?? event.at,
          }),
        },
        BLOCK: { target: 'blocked', actions: assign({ blockedBy: ({ event }) => event.reason }) },
      },
    },
    running: {
      entry: emit(({ context }) => ({
        type: 'node.started' as const,
        nodeId: context.nodeId,
        attempt: context.attempts,
      })),
      invoke: {
        id: 'work',
        src: 'work',
        input: ({ context }) => ({ run: context.run, nodeId: context.nodeId, attempt: context.attempts }),
        onDone: [
          {
            guard: { type: 'succeeded', params: ({ event }) => event.output },
            target: 'completed',
            actions: assign({
              output: ({ event }) => (event.output.ok ? event.output.output : undefined),
              durationMs: ({ context, event }) =>
                event.output.finishedAt - (context.startedAt ?? event.output.finishedAt),
            }),
          },
          {
            target: 'failed',
            actions: assign({
              error: ({ event }) => (event.output.ok ? undefined : event.output.error),
              durationMs: ({ context, event }) =>
                event.output.finishedAt - (context.startedAt ?? event.output.finishedAt),
            }),
          },
        ],
        onError: {
          target: 'failed',
          actions: assign({
            error: ({ event }) => ({
              message: event.error instanceof Error ? event.error.message : String(event.error),
              retryable: false,
            }),
          }),
        },
      },
    },
    // Terminal but not final on purpose: a final child sends its parent `xstate.done.actor.<id>`, an
    // event type per node id, and XState caches transitions per event type on the (module-level)
    // supervisor machine forever. The runner reports completion as `NODE.COMPLETED` instead, and the
    // supervisor stops the run.
    completed: {
      entry: emit(({ context }) => ({
        type: 'node.completed' as const,
        nodeId: context.nodeId,
        attempts: context.attempts,
        startedAt: context.startedAt ?? 0,
        durationMs: context.durationMs ?? 0,
        output: context.output,
      })),
    },
    failed: {
      entry: emit(({ context }) => ({
        type: 'node.failed' as const,
        nodeId: context.nodeId,
        attempt: context.attempts,
        durationMs: context.durationMs ?? 0,
        error: context.error ?? { message: 'unknown failure', retryable: false },
        willRetry: canRetry(context),
      })),
      on: {
        RETRY: {
          guard: 'canRetry',
          target: 'ready',
          actions: [
            emit(({ context, event }) => ({
              type: 'node.retrying' as const,
              nodeId: context.nodeId,
              attempt: context.attempts + 1,
              delayMs: event.delayMs,
            })),
            assign({ error: undefined }),
          ],
        },
      },
    },
    blocked: {
      entry: emit(({ context }) => ({
        type: 'node.blocked' as const,
        nodeId: context.nodeId,
        reason: context.blockedBy ?? '',
      })),
      on: { UNBLOCK: { target: 'ready', actions: assign({ blockedBy: undefined }) } },
    },
  },
});
