import { randomUUID } from 'node:crypto';
import { describeThrown, isStatecrewError } from '../errors.js';
import { addUsage, emptyUsage } from '../models/usage.js';
import type { Crew } from '../runtime/crew/crew.js';
import type { ChildRound } from '../runtime/flow/coverage.js';
import type { Flow } from '../runtime/flow/flow.js';
import type { FlowOutput } from '../runtime/flow/flow-output.js';
import { firstFailureOf } from '../runtime/flow/flow-output.js';
import type { Store } from '../stores/store.js';
import type { CrewOutput, Failure, StatecrewEvent, Usage } from '../types.js';
import { eventUsage, usageCopy } from './case-usage.js';
import type { EvalSpend } from './eval-budget.js';
import { crewRunPath, flowRunPath } from './run-path.js';
import type { EvalCaseResult, RunPath, ScoreInput } from './types.js';

/** A completed task's or step's output, as a node scorer scores it. */
export interface NodeOutput {
  name: string;
  output: unknown;
  task?: { description: string; expectedOutput: string; agent: string };
}

/** How one run of one case went, before it is scored. */
export interface RunOutcome {
  runId: string;
  status: EvalCaseResult['status'];
  output: unknown;
  error?: { code: string; message: string };
  usage: Usage;
  timeMs: number;
  path: RunPath;
  /** The run, for the scorers; undefined when it threw before it ran. */
  run?: ScoreInput['run'];
  nodes: NodeOutput[];
}

/** What every run of an evaluation shares. */
export interface RunContext {
  store: Store;
  signal: AbortSignal;
  spend: EvalSpend;
}

/** The path of a run that never ran (or whose path is not known): nothing taken. */
export function noPath(): RunPath {
  return { trail: [], routes: {}, emitted: [], failed: [] };
}

/** The outcome of a run that threw before it ran, or was aborted: status `error`, with what it threw. */
export function erroredOutcome(runId: string, error: unknown, timeMs = 0): RunOutcome {
  const code = isStatecrewError(error) ? error.code : 'internal_error';
  return {
    runId,
    status: 'error',
    output: null,
    error: { code, message: describeThrown(error) },
    usage: emptyUsage(),
    timeMs,
    path: noPath(),
    nodes: [],
  };
}

/**
 * Runs `crew` on `inputs`: `kickoff({ inputs, store, executionId, signal, budget })`, the budget what
 * is left of the evaluation's (within the crew's own). Its usage is the result's.
 */
export async function runCrewCase(
  crew: Crew,
  inputs: Record<string, unknown>,
  context: RunContext,
): Promise<RunOutcome> {
  const executionId = randomUUID();
  const budget = context.spend.remainingFor(crew.budget);
  const started = performance.now();
  let result: CrewOutput;
  try {
    result = await crew.kickoff({
      inputs,
      store: context.store,
      executionId,
      signal: context.signal,
      ...(budget === undefined ? {} : { budget }),
    });
  } catch (error) {
    return erroredOutcome(executionId, error, performance.now() - started);
  }
  const timeMs = performance.now() - started;
  const failure = Object.values(result.failures)[0];
  return {
    runId: result.metadata.executionId,
    status: result.status,
    output: result.output,
    ...(result.status !== 'completed' && failure !== undefined ? { error: failureOf(failure) } : {}),
    usage: usageCopy(result.usage),
    timeMs,
    path: crewRunPath(crew, result),
    run: { kind: 'crew', result },
    nodes: crewNodes(result),
  };
}

/**
 * Runs `flow` on `inputs`: `run({ inputs, store, signal })`, its usage counted from the model calls
 * its events tell (its crews', relayed) and its child flows' rounds kept for its path.
 */
export async function runFlowCase(
  flow: Flow<object>,
  inputs: Record<string, unknown>,
  context: RunContext,
): Promise<RunOutcome> {
  const started = performance.now();
  let runId = '';
  const usage = emptyUsage();
  const children: ChildRound[] = [];
  let out: FlowOutput<object>;
  try {
    const run = flow.run({ inputs, store: context.store, signal: context.signal });
    runId = run.id;
    const subscription = run.events$.subscribe((event) => {
      const spent = eventUsage(event);
      if (spent !== undefined) addUsage(usage, spent);
      const round = childRound(event);
      if (round !== undefined) children.push(round);
    });
    try {
      out = await run.result;
    } finally {
      subscription.unsubscribe();
    }
  } catch (error) {
    const errored = erroredOutcome(runId, error, performance.now() - started);
    return { ...errored, usage };
  }
  return flowOutcome(flow, out, { usage, children, timeMs: performance.now() - started });
}

function flowOutcome(
  flow: Flow<object>,
  out: FlowOutput<object>,
  seen: { usage: Usage; children: ChildRound[]; timeMs: number },
): RunOutcome {
  const [, failure] = firstFailureOf(out);
  return {
    runId: out.id,
    status: out.status,
    output: out.output,
    ...(out.status === 'failed' && failure !== undefined ? { error: failureOf(failure) } : {}),
    usage: seen.usage,
    timeMs: seen.timeMs,
    path: flowRunPath(flow, out, seen.children),
    run: { kind: 'flow', result: out },
    nodes: Object.entries(out.outputs).map(([name, output]) => ({ name, output })),
  };
}

/** A child flow's round, relayed into its parent's events tagged with the parent's step. */
function childRound(event: StatecrewEvent): ChildRound | undefined {
  if (event.type !== 'flow.round' || event.step === undefined) return undefined;
  return { step: event.step, steps: event.steps, emitted: event.emitted };
}

/** Each completed task's output, by its name (a task run again in a loop: its last output). */
function crewNodes(result: CrewOutput): NodeOutput[] {
  const byName = new Map<string, NodeOutput>();
  for (const task of result.tasksOutput) {
    byName.delete(task.name);
    byName.set(task.name, {
      name: task.name,
      output: task.structured ?? task.raw,
      task: { description: task.description, expectedOutput: task.expectedOutput, agent: task.agent },
    });
  }
  return [...byName.values()];
}

function failureOf(failure: Failure): { code: string; message: string } {
  return { code: failure.code ?? 'internal_error', message: failure.message };
}
