import { describeThrown, isStatecrewError } from '../errors.js';
import type { NodeFailure } from '../machines/lifecycle.js';

/** HTTP statuses a retry can mend: timeout, conflict, rate limit (5xx are checked by range). */
const RETRYABLE_STATUSES = new Set([408, 409, 429]);

/**
 * A failure that crossed a process boundary as plain data (a worker's, through a queue), thrown again
 * where the run is: {@link toFailure} gives back exactly the failure it carries.
 */
export class CarriedFailure extends Error {
  constructor(readonly failure: NodeFailure) {
    super(failure.message);
    this.name = 'CarriedFailure';
  }
}

/**
 * Turns anything thrown into a {@link NodeFailure} that survives JSON. A `StatecrewError` keeps its
 * code, retry flag and details. Another error keeps what it says (a thrown plain object as JSON), its
 * string `code` (`ECONNRESET`), its HTTP status, and when the provider said to retry (`retryAfterMs`);
 * it is not retryable when it says `isRetryable: false` or has an HTTP status other than 408, 409, 429
 * or 5xx.
 *
 * @example
 * toFailure(Object.assign(new Error('rate'), { status: 429, responseHeaders: { 'retry-after': '2' } }));
 * // { message: 'rate', retryable: true, details: { status: 429 }, retryAfterMs: 2000 }
 */
export function toFailure(error: unknown): NodeFailure {
  if (error instanceof CarriedFailure) return { ...error.failure };
  if (isStatecrewError(error)) {
    const failure: NodeFailure = { message: error.message, code: error.code, retryable: error.retryable };
    if (Object.keys(error.details).length > 0) failure.details = error.details;
    return failure;
  }
  const status = httpStatus(error);
  const failure: NodeFailure = { message: describeThrown(error), retryable: isRetryable(error, status) };
  const code = field(error, 'code');
  if (typeof code === 'string') failure.code = code;
  if (status !== undefined) failure.details = { status };
  const retryAfterMs = retryAfterOf(error);
  if (retryAfterMs !== undefined) failure.retryAfterMs = retryAfterMs;
  return failure;
}

/** An explicit `isRetryable` (AI SDK errors carry one) wins; else the HTTP status decides. */
function isRetryable(error: unknown, status: number | undefined): boolean {
  const flag = field(error, 'isRetryable');
  if (typeof flag === 'boolean') return flag;
  if (status === undefined) return true;
  return RETRYABLE_STATUSES.has(status) || (status >= 500 && status <= 599);
}

/**
 * The HTTP status of an HTTP-like error: `status`, `statusCode` or `response.status`. Only integers in
 * the HTTP range count, so an unrelated numeric `status` (an exit code, say) does not stop retries.
 */
function httpStatus(error: unknown): number | undefined {
  const candidates = [
    field(error, 'status'),
    field(error, 'statusCode'),
    field(field(error, 'response'), 'status'),
  ];
  for (const value of candidates) {
    if (typeof value === 'number' && Number.isInteger(value) && value >= 100 && value <= 599) return value;
  }
  return undefined;
}

/** When the provider asked for the next attempt, in ms from now; undefined when it did not say. */
function retryAfterOf(error: unknown): number | undefined {
  const direct = field(error, 'retryAfterMs');
  if (typeof direct === 'number') return nonNegative(direct);
  const seconds = field(error, 'retryAfter');
  if (typeof seconds === 'number' || typeof seconds === 'string') {
    const parsed = parseSeconds(String(seconds));
    if (parsed !== undefined) return parsed;
  }
  for (const headers of [field(error, 'responseHeaders'), field(error, 'headers')]) {
    const fromHeaders = retryAfterHeader(headers);
    if (fromHeaders !== undefined) return fromHeaders;
  }
  return undefined;
}

/** `retry-after-ms` (OpenAI's, more precise) first, then `retry-after` in seconds or as an HTTP date. */
function retryAfterHeader(headers: unknown): number | undefined {
  const ms = header(headers, 'retry-after-ms');
  if (ms !== undefined && isNumeric(ms)) {
    const parsed = nonNegative(Number(ms));
    if (parsed !== undefined) return parsed;
  }
  const value = header(headers, 'retry-after');
  if (value === undefined) return undefined;
  if (isNumeric(value)) return parseSeconds(value);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : nonNegative(date - Date.now());
}

/** One header of a `Headers`-like object (with `get()`) or of a plain object, in any letter case. */
function header(headers: unknown, name: string): string | undefined {
  if (typeof headers !== 'object' || headers === null) return undefined;
  const get = (headers as { get?: unknown }).get;
  if (typeof get === 'function') {
    const value: unknown = get.call(headers, name);
    return typeof value === 'string' ? value : undefined;
  }
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === name && (typeof value === 'string' || typeof value === 'number')) {
      return String(value);
    }
  }
  return undefined;
}

function parseSeconds(text: string): number | undefined {
  return isNumeric(text) ? nonNegative(Number(text) * 1000) : undefined;
}

function isNumeric(text: string): boolean {
  return /^\s*-?\d+(\.\d+)?\s*$/.test(text);
}

/** A whole number of ms ≥ 0 (rounded up, so we never retry early), or undefined. */
function nonNegative(ms: number): number | undefined {
  return Number.isFinite(ms) && ms >= 0 ? Math.ceil(ms) : undefined;
}

function field(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
}
