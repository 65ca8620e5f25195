import { setMaxListeners } from 'node:events';
import { type AnyActorRef, type AnyEventObject, fromCallback } from 'xstate';
import { type AttemptOutcome, isWait, type WorkOutcome, type WorkRequest } from '../machines/lifecycle.js';
import type { ConsultOutcome, ConsultRequest } from './consult.js';
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
  execute(work: AgentWork, signal: AbortSignal): Promise<AttemptOutcome>;
  /**
   * Holds a conversation this agent is asked for by a coworker (a delegation): resolves with its reply
   * (failures as `{ ok: false }`), rejects only when `signal` aborts. Absent: the agent takes none.
   */
  consult?(request: ConsultRequest, signal: AbortSignal): Promise<ConsultOutcome>;
}

/** Input of an agent actor: how it finds its run's executor. */
export interface AgentActorInput {
  executor: AgentExecutor;
}

/**
 * The messages of delegation between agent actors. `DELEGATE` asks an agent's actor (from its own
 * conversation's tool) to hand `request` to the coworker's actor `to`; that actor hears `CONSULT`
 * from it, holds the conversation and answers `CONSULT.DONE`, which settles the delegating call.
 */
export type DelegationMessage =
  | {
      type: 'DELEGATE';
      request: ConsultRequest;
      to: AnyActorRef;
      settle(outcome: ConsultOutcome): void;
    }
  | { type: 'CONSULT'; id: number; request: ConsultRequest; replyTo: AnyActorRef }
  | { type: 'CONSULT.DONE'; id: number; outcome: ConsultOutcome };

/** Every message an agent actor takes. */
export type AgentMessage = ({ type: 'WORK' } & AgentWork) | DelegationMessage;

/** What an actor system relays between actors: XState's own path for `sendTo`, so inspectors see the sender. */
interface RelayingSystem {
  _relay?(source: AnyActorRef | undefined, target: AnyActorRef, event: AnyEventObject): void;
}

/**
 * Sends `event` from actor `source` to actor `target` as XState's `sendTo` does, so that an inspector
 * sees both ends of the message; a system without a relay delivers it plainly.
 */
function relay(system: unknown, source: AnyActorRef, target: AnyActorRef, event: AnyEventObject): void {
  const relaying = system as RelayingSystem;
  if (typeof relaying._relay === 'function') relaying._relay(source, target, event);
  else target.send(event);
}

/**
 * The actor of one agent (or of a flow run's steps) for the length of a run. Task-run actors send it
 * `WORK` requests; it runs each on its executor, outside any actor, and sends the outcome back to the
 * requesting run as `WORK.DONE`. It also talks with its coworkers' actors (`DELEGATE` → `CONSULT` →
 * `CONSULT.DONE`). Stopping it (the run was aborted) aborts every piece of work in flight through the
 * one signal its executor hands out.
 */
export const agentActorLogic = fromCallback<AgentMessage, AgentActorInput>(
  ({ input, receive, self, system }) => {
    const controller = new AbortController();
    // Every call in flight listens on this one signal: 64 at once are not a leak to warn of.
    setMaxListeners(0, controller.signal);
    /** The delegations this agent asked for and waits on, by id. */
    const asked = new Map<number, (outcome: ConsultOutcome) => void>();
    let nextId = 0;
    receive((message) => {
      switch (message.type) {
        case 'DELEGATE':
          nextId += 1;
          asked.set(nextId, message.settle);
          relay(system, self, message.to, {
            type: 'CONSULT',
            id: nextId,
            request: message.request,
            replyTo: self,
          });
          return;
        case 'CONSULT':
          consult(input.executor, message, controller.signal, (outcome) =>
            relay(system, self, message.replyTo, { type: 'CONSULT.DONE', id: message.id, outcome }),
          );
          return;
        case 'CONSULT.DONE':
          asked.get(message.id)?.(message.outcome);
          asked.delete(message.id);
          return;
        default:
          work(input.executor, message, controller.signal);
      }
    });
    return () => controller.abort(new Error('The run ended'));
  },
);

/** Runs one attempt on the executor and answers the requesting run (unless the run ended). */
function work(executor: AgentExecutor, request: AgentWork, signal: AbortSignal): void {
  executor.execute(request, signal).then(
    (outcome) => {
      if (signal.aborted) return;
      const { attempt, replyTo } = request;
      if (isWait(outcome))
        replyTo.send({ type: 'WORK.WAITING', attempt, waiting: outcome.waiting, at: outcome.finishedAt });
      else replyTo.send({ type: 'WORK.DONE', attempt, outcome });
    },
    (error: unknown) => {
      // An executor rejects only on abort, and then the run is over: nobody waits for the outcome.
      // Anything else is a fault of the executor's; it fails the attempt rather than hang the run.
      if (signal.aborted) return;
      const outcome: WorkOutcome = { ok: false, error: toFailure(error), finishedAt: Date.now() };
      request.replyTo.send({ type: 'WORK.DONE', attempt: request.attempt, outcome });
    },
  );
}

/** Holds a coworker's request on the executor and answers it (unless the run ended). */
function consult(
  executor: AgentExecutor,
  message: Extract<DelegationMessage, { type: 'CONSULT' }>,
  signal: AbortSignal,
  answer: (outcome: ConsultOutcome) => void,
): void {
  const held =
    executor.consult === undefined
      ? Promise.resolve<ConsultOutcome>({
          ok: false,
          error: { message: `Agent "${message.request.to}" takes no delegations here`, retryable: false },
        })
      : executor.consult(message.request, signal);
  held.then(
    (outcome) => {
      if (!signal.aborted) answer(outcome);
    },
    (error: unknown) => {
      if (!signal.aborted) answer({ ok: false, error: toFailure(error) });
    },
  );
}
