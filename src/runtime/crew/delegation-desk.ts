import type { AnyActorRef } from 'xstate';
import { askedOf, type ConsultOutcome, type ConsultRequest, repliedOf } from '../../actors/consult.js';
import type { ConversationHooks, Speaker } from '../../actors/conversation.js';
import { holdCoworker } from '../../actors/coworker.js';
import { type DelegationScope, delegationTools } from '../../actors/delegation-tools.js';
import type { AttemptHooks } from '../../actors/task-attempt.js';
import type { Tool } from '../../types.js';
import type { NodeWorker } from '../run/node-runner.js';
import type { RunEvents } from '../run/run-events.js';
import type { Agent } from './agent.js';

/** Finds (or creates) the actor of an agent in the run: a task runner's `actorOf`. */
export type AgentActors = (worker: NodeWorker) => AnyActorRef | undefined;

/** What a crew run's delegations need: the crew's agents (the run's copies) and the depth bound. */
export interface DelegationOptions {
  agents: readonly Agent[];
  maxDepth: number;
}

/**
 * The delegations of one crew run: it grants agents with `allowDelegation` their tools, sends each
 * request as a message from the delegating agent's actor to the coworker's, holds the coworker's
 * conversation when its actor asks (`consult`), and reports both ends (`delegation`,
 * `delegation.replied`). A coworker's model calls count in the task run's usage and under its own role.
 */
export class DelegationDesk {
  readonly #byRole = new Map<string, Agent>();
  readonly #scope: DelegationScope;
  /**
   * The signal of the call that sent each request in flight: the coworker stops when the delegating
   * attempt does (its time limit, an abort), not only when the run ends.
   */
  readonly #callers = new WeakMap<ConsultRequest, AbortSignal>();

  constructor(
    options: DelegationOptions,
    private readonly hub: RunEvents,
    private readonly hooks: AttemptHooks,
    private readonly actors: AgentActors,
  ) {
    for (const agent of options.agents)
      if (!this.#byRole.has(agent.role)) this.#byRole.set(agent.role, agent);
    this.#scope = {
      roles: [...this.#byRole.keys()],
      maxDepth: options.maxDepth,
      ask: (request, signal) => this.#ask(request, signal),
    };
  }

  /** The delegation tools of a task run's agent, when it may delegate and has a coworker. */
  toolsFor(agent: Agent, nodeId: string, attempt: number): Tool[] | undefined {
    if (!this.#delegates(agent)) return undefined;
    // A task's agent missing from the crew's list still delegates (from its own actor).
    if (!this.#byRole.has(agent.role)) this.#byRole.set(agent.role, agent);
    return delegationTools(this.#scope, { nodeId, attempt, chain: [agent.role] });
  }

  /** What a worker needs to grant the delegation tools, when the agent may delegate and has a coworker. */
  remoteGrant(agent: Speaker): { roles: string[]; maxDepth: number } | undefined {
    if (!this.#delegates(agent)) return undefined;
    return { roles: [...this.#scope.roles], maxDepth: this.#scope.maxDepth };
  }

  /**
   * Whether `agent` gets the delegation tools: it may delegate, and the crew has another agent to
   * hand work to — alone, it gets none, as in CrewAI.
   */
  #delegates(agent: Speaker): boolean {
    return agent.allowDelegation === true && this.#scope.roles.some((role) => role !== agent.role);
  }

  /** Holds the conversation a coworker was asked for, with its persona, tools and model. */
  consult(request: ConsultRequest, actorSignal: AbortSignal): Promise<ConsultOutcome> {
    const caller = this.#callers.get(request);
    const signal = caller === undefined ? actorSignal : AbortSignal.any([actorSignal, caller]);
    const agent = this.#byRole.get(request.to);
    if (agent === undefined) {
      const error = { message: `No agent "${request.to}" in this crew`, retryable: false };
      return Promise.resolve({ ok: false, error });
    }
    return holdCoworker(agent, request, this.#scope, signal, this.#talk(request));
  }

  /** Where a coworker's conversation reports: the task run's usage and events, under the coworker's role. */
  #talk(request: ConsultRequest): ConversationHooks {
    const { hooks } = this;
    const { nodeId, attempt, to } = request;
    const talk: ConversationHooks = {
      now: hooks.now,
      onModelCall: (usage, durationMs, failure) =>
        hooks.onModelCall(nodeId, attempt, usage, durationMs, failure, to),
      onToolCall: (record) => hooks.onToolCall(nodeId, { ...record, agent: to }),
    };
    if (hooks.beforeModelCall !== undefined) talk.beforeCall = hooks.beforeModelCall;
    if (hooks.priceOf !== undefined) talk.priceOf = hooks.priceOf;
    if (hooks.memoryFor !== undefined) talk.memory = hooks.memoryFor(nodeId, attempt);
    if (hooks.toolSessions !== undefined) talk.toolSessions = hooks.toolSessions;
    const { onToolProgress } = hooks;
    if (onToolProgress !== undefined)
      talk.onToolProgress = (tool, callId, progress) => onToolProgress(nodeId, tool, callId, progress, to);
    return talk;
  }

  /**
   * Sends `request` from the delegating agent's actor to the coworker's and resolves with the reply;
   * rejects when `signal` aborts (the run or the attempt ended).
   */
  #ask(request: ConsultRequest, signal: AbortSignal): Promise<ConsultOutcome> {
    const from = this.#actorOf(request.from);
    const to = this.#actorOf(request.to);
    if (from === undefined || to === undefined)
      return Promise.reject(signal.reason ?? new Error('The run ended'));
    if (request.resume === undefined) this.#asked(request);
    this.#callers.set(request, signal);
    const started = this.hub.now();
    return new Promise<ConsultOutcome>((resolve, reject) => {
      const abort = () => reject(signal.reason);
      if (signal.aborted) return abort();
      signal.addEventListener('abort', abort, { once: true });
      const settle = (outcome: ConsultOutcome) => {
        signal.removeEventListener('abort', abort);
        if (outcome.ok || outcome.pause === undefined)
          this.#replied(request, outcome, this.hub.now() - started);
        resolve(outcome);
      };
      from.send({ type: 'DELEGATE', request, to, settle });
    });
  }

  #actorOf(role: string): AnyActorRef | undefined {
    const agent = this.#byRole.get(role);
    return agent === undefined ? undefined : this.actors({ key: agent, name: role });
  }

  #asked(request: ConsultRequest): void {
    this.hub.emit({ type: 'delegation', ...askedOf(request) });
  }

  #replied(request: ConsultRequest, outcome: ConsultOutcome, durationMs: number): void {
    this.hub.emit({ type: 'delegation.replied', ...repliedOf(request, outcome, durationMs) });
  }
}
