import type { WorkOutcome } from '../machines/lifecycle.js';
import type { AgentExecutor, AgentWork } from './agent-actor.js';
import { toFailure } from './failure.js';

/**
 * The executor of an advisor's actor (a hierarchical manager, a loop judge): `ask` answers one request
 * (its `nodeId` says what is asked). A throw becomes a failed outcome that keeps what was thrown as
 * `cause`, for the supervisor to reject the run with; an abort rejects, as every executor's does.
 */
export function advisorExecutor(
  ask: (work: AgentWork, signal: AbortSignal) => Promise<unknown>,
  now: () => number,
): AgentExecutor {
  return {
    async execute(work, signal): Promise<WorkOutcome> {
      try {
        return { ok: true, output: await ask(work, signal), finishedAt: now() };
      } catch (error) {
        signal.throwIfAborted();
        return { ok: false, error: toFailure(error), cause: error, finishedAt: now() };
      }
    },
  };
}
