import { StatecrewError } from '../errors.js';
import type { NodeFailure } from '../machines/lifecycle.js';

/** Turns anything thrown into a {@link NodeFailure}: a `StatecrewError` keeps its code and retry flag. */
export function toFailure(error: unknown): NodeFailure {
  if (error instanceof StatecrewError) {
    return { message: error.message, code: error.code, retryable: error.retryable };
  }
  return { message: error instanceof Error ? error.message : String(error), retryable: true };
}
