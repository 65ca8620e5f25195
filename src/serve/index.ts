/**
 * `statecrew/serve`: crews and flows served over HTTP, on Hono.
 *
 * @example
 * import { createServer } from 'statecrew/serve';
 */
export {
  InvalidRequestError,
  NotRunningError,
  PayloadTooLargeError,
  UnauthorizedError,
  UnknownEndpointError,
} from '../errors.js';
export type { ServedFlow, ServedList, ServedResumeOptions, StartedRun } from './definitions.js';
export type { DefinitionView } from './describe.js';
export type { ErrorBody } from './http-errors.js';
export { type Listening, type ListenOptions, listen } from './listen.js';
export type { RunPage, RunSummary } from './run-views.js';
export { DEFAULT_BODY_LIMIT, type ServeOptions } from './serve-options.js';
export { createServer, type StatecrewServer } from './server.js';
