import type { LifecycleEmitted } from '../../machines/lifecycle.js';

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
