import { type AnyActorRef, fromCallback } from 'xstate';
import type { WorkOutcome, WorkRequest } from '../machines/lifecycle.js';
import { toFailure } from './failure.js';

/** A work request as the agent actor receives it: which node and attempt, and where to send the outcome. */
export interface AgentWork extends WorkRequest {
  replyTo: AnyActorRef;
}

/**
 * What runs an agent's work: the seam where per-agent concurrency and rate limits, or a remote
 * executor on a queue, plug in. It resolves with the attempt's outcome (failures as `{ ok: false }`)
 * and rejects only when `signal` aborts.
 */
export interface AgentExecutor {
  execute(work: AgentWork, signal: AbortSignal): Promise<WorkOutcome>;
}

/** Input of an agent actor: how it finds its run's executor. */
export interface AgentActorInput {
  executor: AgentExecutor;
}

/**
 * The actor of one agent (or of a flow run's steps) for the length of a run. Task-run actors send it
 * `WORK` requests; it runs each on its executor, outside any actor, and sends the outcome back to the
 * requesting run as `WORK.DONE`. Stopping it (the run was aborted) aborts every piece of work in flight
 * through the one signal its executor hands out.
 */
export const agentActorLogic = fromCallback<AgentWork, AgentActorInput>(({ input, receive }) => {
  const controller = new AbortController();
  receive((work) => {
    input.executor.execute(work, controller.signal).then(
      (outcome) => {
        if (!controller.signal.aborted)
          work.replyTo.send({ type: 'WORK.DONE', attempt: work.attempt, outcome });
      },
      (error: unknown) => {
        // An executor rejects only on abort, and then the run is over: nobody waits for the outcome.
        // Anything else is a fault of the executor's; it fails the attempt rather than hang the run.
        if (controller.signal.aborted) return;
        const outcome: WorkOutcome = { ok: false, error: toFailure(error), finishedAt: Date.now() };
        work.replyTo.send({ type: 'WORK.DONE', attempt: work.attempt, outcome });
      },
    );
  });
  return () => controller.abort(new Error('The run ended'));
});
