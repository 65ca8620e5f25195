import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { z } from 'zod';
import { InvalidRequestError, isStatecrewError, type StatecrewErrorCode } from '../errors.js';

/** The HTTP status of each error code that is not a server fault; any other code is a 500. */
const STATUS_OF: Partial<Record<StatecrewErrorCode, ContentfulStatusCode>> = {
  invalid_request: 400,
  invalid_inputs: 400,
  invalid_option: 400,
  invalid_state: 400,
  answer_required: 400,
  missing_input: 400,
  unknown_route: 400,
  unknown_router: 400,
  unauthorized: 401,
  run_not_found: 404,
  unknown_definition: 404,
  unknown_endpoint: 404,
  checkpoint_not_found: 404,
  eval_not_found: 404,
  run_locked: 409,
  run_exists: 409,
  flow_mismatch: 409,
  not_paused: 409,
  not_running: 409,
  no_waiter: 409,
  deadline_passed: 409,
  thread_busy: 409,
  idempotency_key_reused: 422,
  payload_too_large: 413,
  store_unavailable: 503,
  suspended: 503,
  store_closed: 503,
  queue_unavailable: 503,
};

/** The HTTP status that fits a statecrew error code. */
export function statusOf(code: string): ContentfulStatusCode {
  return STATUS_OF[code as StatecrewErrorCode] ?? 500;
}

/** The body of every error response: `{ error: { code, message, details } }`. */
export interface ErrorBody {
  error: { code: string; message: string; details: Record<string, unknown> };
}

/** Details as JSON carries them (a cause, a function or a cycle would not survive). */
function plainDetails(details: Readonly<Record<string, unknown>>): Record<string, unknown> {
  try {
    return JSON.parse(JSON.stringify(details)) as Record<string, unknown>;
  } catch {
    return {};
  }
}

/**
 * The response for anything a route threw: a statecrew error with its code, message, details and
 * fitting status; anything else a 500 `internal_error` that tells nothing of its insides (no message,
 * no stack).
 */
export function errorResponse(c: Context, error: unknown): Response {
  if (isStatecrewError(error)) {
    const body: ErrorBody = {
      error: { code: error.code, message: error.message, details: plainDetails(error.details) },
    };
    return c.json(body, statusOf(error.code));
  }
  const body: ErrorBody = {
    error: {
      code: 'internal_error',
      message: 'The server failed to answer this request (internal_error)',
      details: {},
    },
  };
  return c.json(body, 500);
}

/** Zod issues as request issues, each path rooted at `where` (`body`, `query`, `params`). */
function issuesOf(where: string, error: z.ZodError): { path: string; message: string }[] {
  return error.issues.map((issue) => ({
    path: [where, ...issue.path.map(String)].join('.'),
    message: issue.message,
  }));
}

/**
 * `value` parsed by `schema`; `invalid_request` naming every field that does not fit, at its path
 * under `where`, for `route` (`POST /runs`).
 */
export function parseRequest<T extends z.ZodType>(
  route: string,
  where: 'body' | 'query' | 'params',
  schema: T,
  value: unknown,
): z.output<T> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new InvalidRequestError(route, issuesOf(where, parsed.error));
  return parsed.data;
}

/** A request's JSON body (an empty body reads as `{}`); `invalid_request` when it is not JSON. */
export async function jsonBody(route: string, c: Context): Promise<unknown> {
  const text = await c.req.text();
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new InvalidRequestError(route, [{ path: 'body', message: 'is not JSON' }]);
  }
}
