import type { DoneActorEvent, ErrorActorEvent } from 'xstate';

/**
 * What a supervisor hears from its task runs: a run that completed sends XState's own done event
 * (`xstate.done.actor.<nodeId>`, its parent being the supervisor), a run that crashed its error event,
 * and a failed attempt `NODE.FAILED` (failed is not final: it may be retried).
 */
export type NodeSettledEvent =
  | DoneActorEvent<unknown>
  | ErrorActorEvent<unknown>
  | { type: 'NODE.FAILED'; nodeId: string; willRetry: boolean };
