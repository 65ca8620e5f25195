import {
  type AttemptHooks,
  type AttemptSpec,
  runTaskAttempt,
  type TaskRunValue,
} from '../actors/task-attempt.js';
import type { EventHub } from './event-hub.js';
import { LifecycleRunner } from './lifecycle-runner.js';

/** A task run to start: what its attempts need, and how many attempts it may take. */
export interface TaskRunSpec extends AttemptSpec {
  maxAttempts: number;
}

/** The runner of a crew's task runs: agent runs as work, lifecycle transitions as crew events. */
export type TaskRunner = LifecycleRunner<TaskRunSpec>;

/** Creates the task runner of one crew run, publishing on `hub`. */
export function createTaskRunner(hub: EventHub): TaskRunner {
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
          case 'node.failed': {
            const { error, ...rest } = emitted;
            hub.emit({
              ...rest,
              error: error.message,
              ...(error.code === undefined ? {} : { code: error.code }),
            });
            return;
          }
          default:
            hub.emit(emitted);
        }
      },
    },
    hub.now,
  );
}
