import type { ConversationHooks } from './conversation.js';
import type { ConversationProgress } from './conversation-job.js';

/**
 * Hooks that report a conversation held on a worker as its job's progress: each model call (with the
 * model's id, for the run's price table) and each tool call, marked with `agent` when a coworker in a
 * delegation made them.
 */
export function progressHooks(
  report: (progress: ConversationProgress) => void,
  modelId: string | undefined,
  agent?: string,
): ConversationHooks {
  return {
    now: Date.now,
    onModelCall: (usage, durationMs, failure) =>
      report({
        type: 'model.call',
        usage,
        durationMs,
        ...(agent === undefined ? {} : { agent }),
        ...(modelId === undefined ? {} : { modelId }),
        ...(failure === undefined ? {} : { failure }),
      }),
    onToolCall: (record) =>
      report({ type: 'tool.call', record: agent === undefined ? record : { ...record, agent } }),
    onToolProgress: (tool, callId, progress) =>
      report({ type: 'tool.progress', tool, callId, progress, ...(agent === undefined ? {} : { agent }) }),
  };
}
