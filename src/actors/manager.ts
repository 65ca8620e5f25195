import { isStatecrewError, ManagerError, UnknownWorkerError } from '../errors.js';
import { addUsage, emptyUsage } from '../models/usage.js';
import type { CallGate, Usage } from '../types.js';
import { converse } from './conversation.js';
import type { AttemptAgent } from './task-attempt.js';

/** A manager written as two functions. */
export interface ManagerFunctions {
  /** Returns the role of the worker that should do the task. */
  allocate(description: string, workerRoles: string[], context: string): string | Promise<string>;
  /** Merges the workers' outputs (in task order) into the crew's answer. */
  synthesize(goal: string, outputs: string[]): string | Promise<string>;
}

/** A hierarchical crew's manager: two functions, or an agent whose model chooses and synthesizes. */
export type ManagerLike = ManagerFunctions | AttemptAgent;

/** What the manager actors need from the run. */
export interface ManagerScope {
  manager: ManagerLike;
  workerRoles: readonly string[];
  goal: string;
  now(): number;
  /** The task at a position: its node id, description and the context it would be given. */
  taskAt(index: number): { nodeId: string; description: string; context: string };
  /** The completed workers' raw outputs, in task order. */
  outputs(): string[];
  onCall(phase: 'allocate' | 'synthesize', usage: Usage): void;
  /** The run's budget and prices, which the manager's model calls pass like the workers'. */
  gate: CallGate;
  onDelegation(task: string, role: string): void;
}

function isFunctions(manager: ManagerLike): manager is ManagerFunctions {
  return typeof (manager as Partial<ManagerFunctions>).allocate === 'function';
}

async function ask(
  agent: AttemptAgent,
  usage: Usage,
  request: { description: string; expected: string; context: string },
  signal: AbortSignal,
  scope: Pick<ManagerScope, 'now' | 'gate'>,
): Promise<string> {
  const prompt = agent.taskPrompt(request.description, request.expected);
  return converse(agent, prompt, request.context, signal, {
    ...scope.gate,
    now: scope.now,
    onModelCall: (call) => addUsage(usage, call),
  });
}

/**
 * What a failed manager call rejects with: an abort's reason untouched, a `StatecrewError` as it is
 * (`unknown_worker`, `script_exhausted`, …), anything else wrapped in `manager_failed` with the
 * original as its `cause`.
 */
function managerFailure(
  phase: 'allocate' | 'synthesize',
  error: unknown,
  signal: AbortSignal,
  task?: string,
): unknown {
  if (signal.aborted) return signal.reason;
  if (isStatecrewError(error)) return error;
  return new ManagerError(phase, error, task);
}

/**
 * The manager's allocation call for the task at `index`: resolves with a worker role, or rejects with
 * `unknown_worker` when the answer (trimmed) is not exactly one of the workers' roles, and with
 * `manager_failed` when the manager (or its model) throws.
 */
export async function allocate(scope: ManagerScope, index: number, signal: AbortSignal): Promise<string> {
  const task = scope.taskAt(index);
  const roles = [...scope.workerRoles];
  const usage = emptyUsage();
  let answer: unknown;
  try {
    answer = await askAllocation(scope, task, roles, usage, signal);
  } catch (error) {
    throw managerFailure('allocate', error, signal, task.nodeId);
  } finally {
    scope.onCall('allocate', usage);
  }
  const role = String(answer).trim();
  if (!roles.includes(role)) throw new UnknownWorkerError(role, roles, task.nodeId);
  scope.onDelegation(task.nodeId, role);
  return role;
}

async function askAllocation(
  scope: ManagerScope,
  task: { description: string; context: string },
  roles: string[],
  usage: Usage,
  signal: AbortSignal,
): Promise<unknown> {
  const { manager } = scope;
  if (isFunctions(manager)) return manager.allocate(task.description, roles, task.context);
  const request = {
    description: `Choose the worker for this task: ${task.description}\nWorkers: ${roles.join(', ')}`,
    expected: 'Exactly one worker role from the list, and nothing else',
    context: task.context,
  };
  return ask(manager, usage, request, signal, scope);
}

/** The manager's synthesis call: resolves with the crew's final text, or rejects with `manager_failed`. */
export async function synthesize(scope: ManagerScope, signal: AbortSignal): Promise<string> {
  const { manager } = scope;
  const outputs = scope.outputs();
  const usage = emptyUsage();
  try {
    if (isFunctions(manager)) return String(await manager.synthesize(scope.goal, outputs));
    const request = {
      description: `Synthesize the workers' outputs into one answer for the goal: ${scope.goal}`,
      expected: 'The final answer',
      context: outputs.join('\n'),
    };
    return await ask(manager, usage, request, signal, scope);
  } catch (error) {
    throw managerFailure('synthesize', error, signal);
  } finally {
    scope.onCall('synthesize', usage);
  }
}
