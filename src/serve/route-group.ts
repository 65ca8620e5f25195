import type { Hono } from 'hono';
import type { z } from 'zod';
import type { Store } from '../stores/store.js';
import type { Admission } from './admission.js';
import type { Catalog } from './definitions.js';
import type { LiveRuns } from './live-runs.js';
import type { RunStarter } from './run-starter.js';

/** What every route of one server shares. */
export interface ServeContext {
  store: Store;
  catalog: Catalog;
  /** The runs this process runs now: what the event routes subscribe to. */
  live: LiveRuns;
  starter: RunStarter;
  /** The bound on the runs started here at once, and the starts waiting for a place. */
  admission: Admission;
}

/** One response a route documents: its description, its media type and, for a JSON body, its schema. */
export interface ResponseSpec {
  description: string;
  schema?: z.ZodType;
  /** What the body is, when not JSON: an HTML page, a stream of server-sent events, or an SVG picture. @default JSON, given a schema */
  media?: 'text/html' | 'text/event-stream' | 'image/svg+xml' | undefined;
}

/** A route as the OpenAPI document lists it: built from the same zod schemas the route checks with. */
export interface RouteSpec {
  method: 'get' | 'post';
  /** OpenAPI's path template: `/runs/{id}`. */
  path: string;
  summary: string;
  params?: z.ZodObject;
  query?: z.ZodObject;
  /** The request headers the route reads (`Idempotency-Key`, `Last-Event-ID`). */
  headers?: z.ZodObject;
  body?: z.ZodType;
  responses: Readonly<Record<number, ResponseSpec>>;
  /** Served without the token (the studio page alone). @default false */
  open?: boolean;
}

/**
 * A group of routes: what it documents, and how it mounts itself on the server's app. A server is
 * the composition of its groups; a new group (event streams, a studio page) is one more entry.
 */
export interface RouteGroup {
  specs: readonly RouteSpec[];
  mount(app: Hono, context: ServeContext): void;
}

/** The error responses most routes share, for their documentation. */
export const COMMON_ERRORS = {
  400: 'The request does not fit the route (invalid_request), or the run refused it',
  401: 'No bearer token, or the wrong one (unauthorized)',
  500: 'The server failed to answer (internal_error: nothing of its insides is told)',
  503: 'The store or the run queue is out of reach (store_unavailable, queue_unavailable), or the server is stopping (suspended)',
} as const;
