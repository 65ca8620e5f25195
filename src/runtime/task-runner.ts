import {
  type AttemptHooks,
  type AttemptSpec,
  runTaskAttempt,
  type TaskRunValue,
} from '../actors/task-attempt.js';
import type { LifecycleEmitted } from '../machines/lifecycle.js';
import type { Clock } from './clock.js';
import type { EventHub } from './event-hub.js';
import { LifecycleRunner } from './lifecycle-runner.js';

/** A task run to start: what its attempts need, how many attempts it may take and their backoff. */
export interface TaskRunSpec extends AttemptSpec {
  maxAttempts: number;
  retryDelayMs: number;
}

/** The runner of a crew's task runs: agent runs as work, lifecycle transitions as crew events. */
export type TaskRunner = LifecycleRunner<TaskRunSpec>;

/** Creates the task runner of one crew run, publishing on `hub`, its backoffs on `clock`. */
export function createTaskRunner(hub: EventHub, clock: Clock): TaskRunner {
  const hooks: AttemptHooks = {
    now: hub.now,
    onModelCall: (nodeId, attempt, usage, durationMs, failure) =>
      hub.emit({
        type: 'model.call',
        nodeId,
        attempt,
        usage,
        durationMs,
        ...(failure === undefined ? {} : { error: failure.message }),
        ...(failure?.code === undefined ? {} : { code: failure.code }),
      }),
    onToolCall: (nodeId, call) => hub.emit({ type: 'tool.call', nodeId, call }),
  };
  return new LifecycleRunner<TaskRunSpec>(
    {
      workerOf: (spec) => ({ key: spec.agent, name: spec.agent.role }),
      attempt: (spec, attempt, signal) => runTaskAttempt(spec, attempt, signal, hooks),
      publish(emitted, spec) {
        switch (emitted.type) {
          case 'node.started':
            if (spec) hub.emit({ ...emitted, name: spec.name, agent: spec.agent.role });
            return;
          case 'node.completed': {
            if (spec === undefined) return;
            const value = emitted.output as TaskRunValue;
            hub.emit({
              type: 'node.completed',
              nodeId: emitted.nodeId,
              attempts: emitted.attempts,
              durationMs: emitted.durationMs,
              output: {
                name: spec.name,
                description: spec.description,
                expectedOutput: spec.expectedOutput,
                agent: spec.agent.role,
                ...value,
              },
            });
            return;
          }
          case 'node.failed':
            hub.emit(failedEvent(emitted));
            return;
          default:
            hub.emit(emitted);
        }
      },
    },
    clock,
    hub.runId,
  );
}

/** A lifecycle's `node.failed` as a run event: the failure's message, code, retry flag and details. */
export function failedEvent(emitted: Extract<LifecycleEmitted, { type: 'node.failed' }>) {
  const { error, ...rest } = emitted;
  return {
    ...rest,
    error: error.message,
    retryable: error.retryable,
    ...(error.code === undefined ? {} : { code: error.code }),
    ...(error.details === undefined ? {} : { details: error.details }),
  };
}
