import type { TaskWait } from '../../actors/pause.js';
import { addUsage, emptyUsage } from '../../models/usage.js';
import type {
  Delegation,
  DelegationMessage,
  Failure,
  NodeExecutionInfo,
  NodeStatus,
  TaskOutput,
  Usage,
} from '../../types.js';
import { askedMessage, refusedMessage, replyTo } from './delegation-messages.js';
import type { UnstampedEvent } from './unstamped-event.js';

/** What the recorder knows about one node, built only from its events: its future result entry, and its output. */
export interface NodeRecord extends Omit<NodeExecutionInfo, 'status'> {
  status: NodeStatus;
  output?: TaskOutput;
  /** Why it failed for good, with its code. */
  failure?: Failure;
  /** What it waits for (status `waiting`): what its run keeps to go on with it. */
  wait?: TaskWait;
  /** The messages its agents sent coworkers (refused ones too), in the order asked. */
  delegations: DelegationMessage[];
  /**
   * What each agent's model calls in it spent, by role (its own agent's and its coworkers'), once a
   * coworker spent in it; until then all of `usage` is its own agent's (most nodes: no map for them).
   */
  agentUsage?: Map<string, Usage>;
}

/** What a node restored from an earlier run brings to its record. */
export interface RestoredFacts {
  attempts: number;
  startedAt: number;
  durationMs: number;
  usage: Usage;
  /** Its messages to coworkers, and its usage by role, when the earlier run kept them. */
  delegations?: DelegationMessage[];
  agentUsage?: Record<string, Usage>;
}

/** What a reader of a completed output gets: its structured value as JSON when it has one, else its raw text. */
export function contextText(output: Pick<TaskOutput, 'raw' | 'structured'>): string {
  return output.structured === undefined ? output.raw : (JSON.stringify(output.structured) ?? output.raw);
}

/**
 * Folds a run's events into what its result reports. It is the run's only bookkeeping of what ran:
 * context building and the result both read from it. Each event costs O(1).
 */
export class RunRecorder {
  readonly nodes = new Map<string, NodeRecord>();
  /** Completed and failed nodes, in the order they settled. */
  readonly settled: NodeRecord[] = [];
  readonly blocked: string[] = [];
  /** Every hand-over of work between agents, in the order it was asked. */
  readonly delegations: Delegation[] = [];
  /** What each agent's own model calls spent, by role (manager and judge apart). */
  readonly agentsUsage = new Map<string, Usage>();
  readonly usage: Usage = emptyUsage();
  /** What the manager or judge spent (part of `usage`). */
  readonly managerUsage: Usage = emptyUsage();
  /** What the task runs' agents spent (part of `usage`). */
  readonly workersUsage: Usage = emptyUsage();
  readonly verdicts: { iteration: number; verdict: 'yes' | 'no'; reply: string }[] = [];
  managerCalls = 0;

  /** Folds `event`, which happened `at` (epoch ms), into the record. */
  apply(event: UnstampedEvent, at: number): void {
    switch (event.type) {
      case 'node.started':
        this.started(event.nodeId, event.name, event.agent, event.attempt, at);
        return;
      case 'node.completed':
        this.completed(event.nodeId, event.output, event.durationMs);
        return;
      case 'node.failed': {
        if (event.willRetry) return;
        const record = this.#record(event.nodeId, event.nodeId, '');
        record.status = 'failed';
        record.durationMs = event.durationMs;
        record.error = event.error;
        record.failure = failureOf(event);
        if (event.code !== undefined) record.errorCode = event.code;
        this.settled.push(record);
        return;
      }
      case 'node.waiting': {
        const record = this.#record(event.nodeId, event.nodeId, '');
        record.status = 'waiting';
        record.attempts = event.attempt;
        this.settled.push(record);
        return;
      }
      case 'node.blocked':
        this.#record(event.nodeId, event.nodeId, '').status = 'blocked';
        this.blocked.push(event.nodeId);
        return;
      case 'model.call':
        this.modelCall(event.nodeId, event.usage, event.agent);
        return;
      case 'tool.call': {
        const record = this.#record(event.nodeId, event.nodeId, '');
        record.toolCalls.push(event.call);
        const refused = refusedMessage(event.call, record.agent);
        if (refused !== undefined) record.delegations.push({ ...refused, at });
        return;
      }
      case 'delegation': {
        this.delegations.push(delegationOf(event));
        if (event.kind !== 'allocate')
          this.#record(event.nodeId, event.nodeId, '').delegations.push(askedMessage(event, at));
        return;
      }
      case 'delegation.replied':
        replyTo(this.#record(event.nodeId, event.nodeId, '').delegations, event, at);
        return;
      case 'judge.verdict':
        this.verdicts.push({ iteration: event.iteration, verdict: event.verdict, reply: event.reply });
        addUsage(this.usage, event.usage);
        addUsage(this.managerUsage, event.usage);
        return;
      case 'manager.call':
        this.managerCalls += 1;
        addUsage(this.usage, event.usage);
        addUsage(this.managerUsage, event.usage);
        return;
      default:
        return;
    }
  }

  /** An attempt of a node started (`node.started`). */
  started(nodeId: string, name: string, agent: string, attempt: number, at: number): void {
    const record = this.#record(nodeId, name, agent);
    record.status = 'running';
    record.attempts = attempt;
    if (attempt === 1) record.startedAt = at;
  }

  /** A node completed with `output` (`node.completed`). */
  completed(nodeId: string, output: TaskOutput, durationMs: number): void {
    const record = this.#record(nodeId, output.name, output.agent);
    record.status = 'completed';
    record.durationMs = durationMs;
    record.output = output;
    this.settled.push(record);
  }

  /**
   * A node completed with a result kept from an earlier run: its record takes that run's attempts,
   * start, duration and usage (which count towards the run's usage), as if it had run here.
   */
  restored(nodeId: string, from: RestoredFacts): void {
    const record = this.#record(nodeId, nodeId, '');
    record.attempts = from.attempts;
    record.startedAt = from.startedAt;
    record.durationMs = from.durationMs;
    record.usage = { ...from.usage };
    addUsage(this.usage, from.usage);
    addUsage(this.workersUsage, from.usage);
    if (from.delegations !== undefined) record.delegations = [...from.delegations];
    delete record.agentUsage;
    if (from.agentUsage === undefined) {
      addUsage(usageOf(this.agentsUsage, record.agent), from.usage);
      return;
    }
    const byRole = new Map<string, Usage>();
    for (const [role, usage] of Object.entries(from.agentUsage)) {
      addUsage(usageOf(this.agentsUsage, role), usage);
      byRole.set(role, { ...usage });
    }
    record.agentUsage = byRole;
  }

  /** A remote worker held a node's attempt. */
  worker(nodeId: string, worker: string): void {
    this.#record(nodeId, nodeId, '').worker = worker;
  }

  /**
   * A model call of a node's spent `usage` (`model.call`): `agent` made it when it is not the node's
   * own agent (a coworker in a delegation); it counts in the node's usage either way.
   */
  modelCall(nodeId: string, usage: Usage, agent?: string): void {
    const record = this.#record(nodeId, nodeId, '');
    // By role first: it reads what the node spent before this call.
    this.#agentUsage(record, agent ?? record.agent, usage);
    addUsage(record.usage, usage);
    addUsage(this.usage, usage);
    addUsage(this.workersUsage, usage);
  }

  /**
   * Counts `usage` under `role`, in the run's usage by agent and in `record`'s: a node keeps a map by
   * role only once a coworker spends in it (what it spent before was all its own agent's).
   */
  #agentUsage(record: NodeRecord, role: string, usage: Usage): void {
    addUsage(usageOf(this.agentsUsage, role), usage);
    if (record.agentUsage === undefined) {
      if (role === record.agent) return;
      record.agentUsage = new Map();
      if (record.usage.calls > 0) record.agentUsage.set(record.agent, { ...record.usage });
    }
    addUsage(usageOf(record.agentUsage, role), usage);
  }

  /** The raw output of a completed node, if it completed. */
  rawOf(nodeId: string): string | undefined {
    return this.nodes.get(nodeId)?.output?.raw;
  }

  /**
   * What a later task (or a manager, a judge, a summary) reads of a completed node: its structured
   * value as JSON when it has one, else its raw text.
   */
  contextOf(nodeId: string): string | undefined {
    const output = this.nodes.get(nodeId)?.output;
    return output === undefined ? undefined : contextText(output);
  }

  #record(nodeId: string, name: string, agent: string): NodeRecord {
    let record = this.nodes.get(nodeId);
    if (record === undefined) {
      record = {
        nodeId,
        name,
        agent,
        status: 'idle',
        startedAt: 0,
        durationMs: 0,
        attempts: 0,
        usage: emptyUsage(),
        toolCalls: [],
        delegations: [],
      };
      this.nodes.set(nodeId, record);
    }
    return record;
  }
}

/** The usage `byRole` keeps for `role`, added empty when it has none yet. */
function usageOf(byRole: Map<string, Usage>, role: string): Usage {
  let usage = byRole.get(role);
  if (usage === undefined) {
    usage = emptyUsage();
    byRole.set(role, usage);
  }
  return usage;
}

/** The failure a `node.failed` event reports, as the result's `failures` holds it. */
export function failureOf(event: Extract<UnstampedEvent, { type: 'node.failed' }>): Failure {
  const failure: Failure = { message: event.error, retryable: event.retryable };
  if (event.code !== undefined) failure.code = event.code;
  if (event.details !== undefined) failure.details = event.details;
  return failure;
}

/** A `delegation` event as the result lists it: the hand-over's own fields, without the event's. */
function delegationOf(event: Extract<UnstampedEvent, { type: 'delegation' }>): Delegation {
  if (event.kind === 'allocate') return { kind: 'allocate', task: event.task, role: event.role };
  const { kind, from, to, role, task, nodeId } = event;
  return { kind, from, to, role, task, nodeId };
}
