import { type ActorOptions, type AnyActorLogic, type AnyActorRef, createActor } from 'xstate';
import { InvalidOptionError } from '../../errors.js';
import { type SequentialEffects, sequentialMachine } from '../../machines/sequential.js';
import type { Llm, TaskOutput } from '../../types.js';
import { contextText } from '../engine/recorder.js';
import type { CrewRunScope } from '../process.js';
import { Agent } from './agent.js';
import { createCrewScope } from './crew-scope.js';
import { interpolate } from './interpolate.js';
import { Task } from './task.js';

/** The node id of a crew's summary node. */
export const SUMMARY_NODE = 'summary';

/**
 * A crew's summary (`summarize` on a crew): after the tasks, one more node whose agent merges the
 * completed outputs into `out.summary`. It is a task run like the others: visible in `nodes` and on
 * `events$`, retried, timed, rate-limited and within the budget, with its own usage.
 */
export interface SummarizeOptions {
  /** What the summarizer thinks with: a policy, a model or a provider string. */
  llm: Llm | string;
  /** What it is asked. @default "Summarize the crew's results in one answer" (and the crew's goal) */
  description?: string | undefined;
  /** What its answer should be. @default 'A short summary of the results' */
  expectedOutput?: string | undefined;
}

/** A crew's summary node, made once from its options: the summarizer agent and its task. */
export interface SummaryNode {
  agent: Agent;
  task: Task;
}

/** Checks `summarize` and makes its node; a task already holding its node id is refused. */
export function summaryNode(
  options: SummarizeOptions | undefined,
  goal: string,
  nodeIds: Iterable<string>,
): SummaryNode | undefined {
  if (options === undefined) return undefined;
  if (typeof options !== 'object' || options === null) {
    throw new InvalidOptionError('Crew', 'summarize', '{ llm, description?, expectedOutput? }', options);
  }
  for (const nodeId of nodeIds) {
    if (nodeId === SUMMARY_NODE) {
      throw new InvalidOptionError(
        'Crew',
        'summarize',
        `a crew with no task named "${SUMMARY_NODE}" (the summary node's id)`,
        nodeId,
      );
    }
  }
  const agent = new Agent({
    role: 'Summarizer',
    goal: "merge a crew's results into one clear answer",
    llm: options.llm,
  });
  const description =
    options.description ??
    (goal === ''
      ? "Summarize the crew's results in one answer"
      : `Summarize the crew's results for the goal: ${goal}`);
  const task = new Task({
    name: SUMMARY_NODE,
    description,
    expectedOutput: options.expectedOutput ?? 'A short summary of the results',
    agent,
  });
  return { agent, task };
}

/**
 * The summary's context: each completed task's output under its name, in completion order (a
 * structured output as JSON).
 */
export function summaryContext(outputs: readonly TaskOutput[]): string {
  return outputs.map((output) => `${output.name}:\n${contextText(output)}`).join('\n\n');
}

/**
 * Creates (does not start) the supervisor of a run's summary node, with its own runner (a runner
 * serves one supervisor) reporting to the run's recorder and hub: `scope` is the run's, its plan
 * replaced by the summary's.
 */
export function summarySupervisor(
  node: SummaryNode,
  scope: Omit<Parameters<typeof createCrewScope>[0], 'plan'>,
  context: string,
  inputs: Readonly<Record<string, unknown>>,
  actorOptions: {
    id: string;
    parent?: AnyActorRef | undefined;
    inspect?: ActorOptions<AnyActorLogic>['inspect'] | undefined;
  },
): { actor: AnyActorRef } {
  const agent = node.agent;
  const planned = {
    nodeId: SUMMARY_NODE,
    index: 0,
    task: node.task,
    description: interpolate(node.task.description, inputs),
    expectedOutput: interpolate(node.task.expectedOutput, inputs),
    agent,
    contextIds: undefined,
    contextPositions: undefined,
  };
  const summaryScope: CrewRunScope = createCrewScope({
    ...scope,
    plan: {
      tasks: [planned],
      byNodeId: new Map([[SUMMARY_NODE, planned]]),
      agents: [agent],
      inputs: {},
      goal: '',
    },
  });
  // A one-task sequential supervisor: the summary node, retried as its lifecycle allows.
  const effects: SequentialEffects = {
    startNode: (_index, self) => summaryScope.startTask(planned, agent, context, self),
    retryNode: (nodeId) => scope.runner.retry(nodeId),
    // One task: nothing comes after it to block.
    blockFrom: () => {},
  };
  const { id, parent, inspect } = actorOptions;
  const actor = createActor(sequentialMachine, {
    input: { effects, total: 1 },
    id,
    ...(parent !== undefined ? { parent } : inspect === undefined ? {} : { inspect }),
  });
  actor.subscribe({ next: () => scope.runner.flush(), error: () => {} });
  return { actor };
}
