import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { cors } from 'hono/cors';
import { InvalidOptionError, PayloadTooLargeError, UnknownEndpointError } from '../errors.js';
import type { QueueOptions } from '../queue/connection.js';
import type { Crew } from '../runtime/crew/crew.js';
import { checkOptionKeys } from '../runtime/crew/option-keys.js';
import { createRunner, type Runner } from '../runtime/durable/runner.js';
import { isStore, type Store } from '../stores/store.js';
import { answerRoutes } from './answer-routes.js';
import { bearerAuth } from './auth.js';
import { definitionRoutes } from './definition-routes.js';
import { Catalog, type ServedFlow, type ServedList } from './definitions.js';
import { eventRoutes } from './event-routes.js';
import { errorResponse } from './http-errors.js';
import { LiveRuns } from './live-runs.js';
import { openApiRoutes } from './openapi.js';
import type { RouteGroup, ServeContext } from './route-group.js';
import { runRoutes } from './run-routes.js';
import { RunStarter } from './run-starter.js';
import { studioRoutes } from './studio/routes.js';
import { viewRoutes } from './view-routes.js';

/** Options of {@link createServer}. */
export interface ServeOptions {
  /** The crews served, as a list or a record keyed by each one's name. @default [] */
  crews?: ServedList<Crew> | undefined;
  /** The flows served (any `createFlow(...)`), as a list or a record keyed by each one's name. @default [] */
  flows?: ServedList<ServedFlow> | undefined;
  /** Where every run is kept: runs started over HTTP are durable. */
  store: Store;
  /**
   * What resumes runs whose process died, fires deadlines and schedules: a `createRunner(...)`
   * result (the caller closes it), or `false` for none. @default one over `store` with the served
   * definitions, closed with the server
   */
  runner?: Runner | false | undefined;
  /** The bearer token every request must carry (`Authorization: Bearer <token>`). */
  token?: string | undefined;
  /**
   * Serve without a token. Only for a server that listens on 127.0.0.1 alone: the caller promises
   * that no one else can reach it. @default false
   */
  insecureNoAuth?: boolean | undefined;
  /** The origin allowed to call from a browser (CORS); none when absent. @default undefined */
  cors?: string | undefined;
  /** The largest request body taken, in bytes (a 413 `payload_too_large` beyond it). @default 1048576 */
  bodyLimit?: number | undefined;
  /**
   * Submit runs to the BullMQ run queue instead of running them here: a Redis URL, or queue options
   * (`statecrew worker` processes then run them). @default runs start in this process
   */
  queue?: string | QueueOptions | undefined;
}

/** A Hono app serving crews and flows over HTTP, and `close` for what it owns. */
export interface StatecrewServer extends Hono {
  /**
   * Aborts the runs this server runs (each kept as aborted, for a runner to resume), closes the
   * runner it made and its run queue. The store stays open: the caller owns it.
   */
  close(): Promise<void>;
}

const WHERE = 'createServer';

const SERVE_OPTIONS = {
  crews: true,
  flows: true,
  store: true,
  runner: true,
  token: true,
  insecureNoAuth: true,
  cors: true,
  bodyLimit: true,
  queue: true,
} as const;

/** The default largest body: 1 MiB. */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;

/** The route groups every server is made of, in mounting order; `/openapi.json` documents them all. */
const ROUTE_GROUPS: readonly RouteGroup[] = [
  definitionRoutes,
  runRoutes,
  answerRoutes,
  eventRoutes,
  viewRoutes,
  studioRoutes,
];

/** The routes served without the token (`open` in their spec: the studio page), as `METHOD /path`. */
const OPEN_ROUTES = new Set(
  ROUTE_GROUPS.flatMap((group) =>
    group.specs
      .filter((spec) => spec.open === true)
      .map((spec) => `${spec.method.toUpperCase()} ${spec.path}`),
  ),
);

/** Whether a request may go without the token: an open route, by GET (or HEAD). */
const isOpenRoute = (method: string, path: string) =>
  OPEN_ROUTES.has(`${method === 'HEAD' ? 'GET' : method} ${path}`);

/** The live runs of each server: what routes mounted later (event streams) follow. */
const liveRunsOf = new WeakMap<StatecrewServer, LiveRuns>();

/** The live-run registry of `server` (internal: for the event routes and tests). */
export function liveRuns(server: StatecrewServer): LiveRuns {
  const live = liveRunsOf.get(server);
  if (live === undefined) throw new InvalidOptionError('liveRuns', 'server', 'a createServer result', server);
  return live;
}

/** Checks the options that are not definitions; resolves the token (undefined: no auth). */
function checkOptions(options: ServeOptions): { token: string | undefined; limit: number } {
  if (typeof options !== 'object' || options === null) {
    throw new InvalidOptionError(WHERE, 'options', 'an object', options);
  }
  checkOptionKeys(WHERE, options, SERVE_OPTIONS);
  if (!isStore(options.store))
    throw new InvalidOptionError(WHERE, 'store', 'a Store (runs are durable)', options.store);
  const { token, insecureNoAuth, cors: origin, bodyLimit: limit = DEFAULT_BODY_LIMIT } = options;
  if (token !== undefined && (typeof token !== 'string' || token.trim() === '')) {
    throw new InvalidOptionError(WHERE, 'token', 'a non-empty string', token);
  }
  if (token === undefined && insecureNoAuth !== true) {
    throw new InvalidOptionError(
      WHERE,
      'token',
      'a bearer token (or insecureNoAuth: true on 127.0.0.1)',
      token,
      {
        message: `${WHERE}: a server needs a bearer token (option "token"); only one that listens on 127.0.0.1 may go without, with insecureNoAuth: true`,
      },
    );
  }
  if (origin !== undefined && (typeof origin !== 'string' || origin === '')) {
    throw new InvalidOptionError(WHERE, 'cors', 'an origin such as https://app.example.com', origin);
  }
  if (!Number.isInteger(limit) || limit < 1) {
    throw new InvalidOptionError(WHERE, 'bodyLimit', 'a whole number of bytes, at least 1', limit);
  }
  if (
    options.runner !== undefined &&
    options.runner !== false &&
    typeof options.runner?.close !== 'function'
  ) {
    throw new InvalidOptionError(WHERE, 'runner', 'a createRunner result, or false', options.runner);
  }
  return { token, limit };
}

/** The queue options of the `queue` option: a URL is the connection. */
function queueOptionsOf(queue: ServeOptions['queue']): QueueOptions | undefined {
  if (queue === undefined) return undefined;
  if (typeof queue === 'string') return { connection: queue };
  if (typeof queue !== 'object' || queue === null) {
    throw new InvalidOptionError(WHERE, 'queue', 'a Redis URL, or queue options', queue);
  }
  return queue;
}

/** The app's middleware: CORS when asked, the bearer token unless waived, the body limit. */
function useMiddleware(app: Hono, options: ServeOptions, token: string | undefined, limit: number): void {
  if (options.cors !== undefined) {
    app.use(
      cors({
        origin: options.cors,
        allowHeaders: ['Authorization', 'Content-Type', 'Last-Event-ID'],
        allowMethods: ['GET', 'POST', 'OPTIONS'],
      }),
    );
  }
  if (token !== undefined) app.use(bearerAuth(token, isOpenRoute));
  app.use(bodyLimit({ maxSize: limit, onError: (c) => errorResponse(c, new PayloadTooLargeError(limit)) }));
  app.onError((error, c) => errorResponse(c, error));
  app.notFound((c) => errorResponse(c, new UnknownEndpointError(c.req.method, c.req.path)));
}

/**
 * Serves crews and flows over HTTP, on Hono: `GET /definitions`, `POST /runs` (a durable run, here or
 * on the run queue), `GET /runs`, `GET /runs/:id`, `POST /runs/:id/resume|signal|abort`, the run's
 * events (`GET /runs/:id/events`, `/agui`), its page (`GET /runs/:id/view`), `GET /openapi.json` and
 * the studio at `/`. Every request but the studio page's needs the bearer token (unless
 * `insecureNoAuth`), every body is
 * checked, and every error is `{ error: { code, message, details } }` with a status that fits its
 * code. The result is a Hono app: serve it (`@hono/node-server`), call `fetch`/`request`, or mount it
 * in another app; `close()` releases what it owns.
 *
 * @example
 * const server = createServer({ crews: [research], flows: [refunds], store: new SqliteStore(), token });
 * const res = await server.request('/definitions', { headers: { authorization: `Bearer ${token}` } });
 */
export function createServer(options: ServeOptions): StatecrewServer {
  const { token, limit } = checkOptions(options);
  const catalog = new Catalog(options.crews, options.flows);
  const live = new LiveRuns();
  const starter = new RunStarter(options.store, live, queueOptionsOf(options.queue));
  const runner =
    options.runner === undefined
      ? createRunner({
          store: options.store,
          crews: catalog.crews(),
          flows: catalog.flows(),
        })
      : undefined;
  const app = new Hono();
  useMiddleware(app, options, token, limit);
  const context: ServeContext = { store: options.store, catalog, live, starter };
  const info = { title: 'statecrew', version: '0.1.0', secured: token !== undefined };
  for (const group of [...ROUTE_GROUPS, openApiRoutes(ROUTE_GROUPS, info)]) group.mount(app, context);
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      await live.abortAll(new Error('the server closed'));
      await runner?.close();
      await starter.close();
    })();
    return closing;
  };
  const server = Object.assign(app, { close }) as StatecrewServer;
  liveRunsOf.set(server, live);
  return server;
}
