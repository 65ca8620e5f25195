import { DEFAULT_RETRY_DELAY_MS } from '../engine/backoff.js';
import type { CallGate } from '../engine/budget.js';
import type { RunRecorder } from '../engine/recorder.js';
import type { CrewDefinition, CrewRunScope } from '../process.js';
import { failedEvent } from '../run/node-events.js';
import type { RunEvents } from '../run/run-events.js';
import type { Agent } from './agent.js';
import type { StoredTaskResult } from './crew-store.js';
import { attemptsFor, type CrewPlan, type PlannedTask } from './plan.js';
import type { Task } from './task.js';
import type { TaskRunner, TaskRunSpec } from './task-runner.js';
import type { WaitingTasks } from './waiting-tasks.js';

/** What a crew run's scope is made of. */
export interface CrewScopeParts {
  plan: CrewPlan;
  runner: TaskRunner;
  recorder: RunRecorder;
  hub: RunEvents;
  crew: CrewDefinition;
  restored: ReadonlyMap<string, StoredTaskResult>;
  reached: ReadonlySet<string>;
  gate: CallGate;
  /** Runs a resumed run found waiting for a human: each goes on with its answers. */
  waiting?: WaitingTasks | undefined;
}

/**
 * The scope a process's supervisor works in: the run's plan, recorder and hub, and how a task run
 * starts — the task's own settings first, then its agent's (time limit, attempts, backoff).
 */
export function createCrewScope(parts: CrewScopeParts): CrewRunScope {
  const { runner, waiting } = parts;
  // A run that waited for a human counts on from the attempts it used.
  const specOf = (spec: TaskRunSpec) => (waiting === undefined ? spec : waiting.specOf(spec));
  return {
    ...parts,
    startTask(planned, agent, context, supervisor, nodeId = planned.nodeId) {
      runner.start(specOf(taskRunSpec(planned, agent, context, nodeId)), supervisor);
    },
    startTaskNow(planned, agent, context, supervisor) {
      runner.startNow(specOf(taskRunSpec(planned, agent, context, planned.nodeId)), supervisor);
    },
    recordFailure(nodeId, failure) {
      const failed = {
        type: 'node.failed' as const,
        nodeId,
        attempt: 1,
        durationMs: 0,
        error: failure,
        willRetry: false,
      };
      parts.hub.emit(failedEvent(failed));
    },
    block(nodeIds, reason, supervisor) {
      runner.block(nodeIds, reason, supervisor);
    },
  };
}

/**
 * A run of `planned` by `agent`, reading `context`: the task's own settings first, then its agent's.
 * Built with assignments, not spreads: this runs once per task run.
 */
function taskRunSpec(planned: PlannedTask, agent: Agent, context: string, nodeId: string): TaskRunSpec {
  const { task } = planned;
  const spec: TaskRunSpec = {
    nodeId,
    name: planned.nodeId,
    description: planned.description,
    expectedOutput: planned.expectedOutput,
    context,
    agent,
    outputSchema: task.outputSchema,
    guardrail: task.guardrail === undefined ? undefined : [task.guardrail].flat(),
    timeoutMs: task.timeoutMs ?? agent.timeoutMs,
    maxAttempts: attemptsFor(task, agent),
    retryDelayMs: task.retryDelayMs ?? agent.retryDelayMs ?? DEFAULT_RETRY_DELAY_MS,
  };
  if (task.tools.length > 0 || task.toolSources.length > 0) Object.assign(spec, taskTools(task, agent));
  if (task.humanInput) spec.humanInput = true;
  if (task.markdown) spec.markdown = true;
  if (planned.outputFile !== undefined) spec.outputFile = planned.outputFile;
  return spec;
}

/**
 * The tools a task grants its runs, in place of its agent's when it grants any (CrewAI's `task.tools
 * or agent.tools`; an empty list grants none). The agent's execution-memory `results` tool (its
 * `memory` option) stays, as CrewAI adds its memory tools to a task's; the delegation tools are
 * added per attempt.
 */
function taskTools(task: Task, agent: Agent): Pick<TaskRunSpec, 'tools' | 'toolSources' | 'crewTools'> {
  if (task.tools.length === 0 && task.toolSources.length === 0) return {};
  const memory = agent.memory ? agent.tools.filter((tool) => tool.name === 'results') : [];
  return {
    tools: task.tools,
    toolSources: task.toolSources,
    ...(memory.length === 0 ? {} : { crewTools: memory }),
  };
}
