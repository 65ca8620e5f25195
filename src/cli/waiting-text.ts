import type { WaitingFor } from '../types.js';

/** Epoch ms as an ISO time. */
const isoOf = (at: number): string => new Date(at).toISOString();

/** What a node waits for, in a few words: `approval of refund (call t1.1.0) for Agent`. */
export function waitingForText(waitingFor: WaitingFor): string {
  const until = 'timeoutAt' in waitingFor && waitingFor.timeoutAt !== undefined;
  const deadline = until ? `, times out at ${isoOf(waitingFor.timeoutAt as number)}` : '';
  switch (waitingFor.kind) {
    case 'approval':
      return `approval of ${waitingFor.tool} (call ${waitingFor.callId}) for ${waitingFor.agent}`;
    case 'review':
      return 'a review of its output';
    case 'human':
      return `a human's answer (${waitingFor.routes.join(' | ')})${deadline}`;
    case 'event':
      return `event ${waitingFor.event}${deadline}`;
    case 'sleep':
      return `its wake time ${isoOf(waitingFor.wakeAt)}`;
    case 'crew':
      return `crew ${waitingFor.crew} run ${waitingFor.executionId}`;
    case 'flow':
      return `flow ${waitingFor.flow} run ${waitingFor.runId} at ${waitingFor.path}${deadline}`;
  }
}
