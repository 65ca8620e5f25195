import { Hono } from 'hono';
import { cors } from 'hono/cors';
import { InvalidOptionError, UnknownEndpointError } from '../errors.js';
import { parseOptions } from '../options/parse.js';
import type { QueueOptions } from '../queue/connection.js';
import { GracefulStop } from '../runtime/durable/graceful-stop.js';
import { createRunner } from '../runtime/durable/runner.js';
import { Admission } from './admission.js';
import { admissionRoutes } from './admission-routes.js';
import { aguiRoutes } from './agui-routes.js';
import { answerRoutes } from './answer-routes.js';
import { bearerAuth } from './auth.js';
import { bodyLimit } from './body-limit.js';
import { definitionRoutes } from './definition-routes.js';
import { Catalog } from './definitions.js';
import { evalCoverageRoutes } from './eval-coverage-route.js';
import { evalRoutes } from './eval-routes.js';
import { eventRoutes } from './event-routes.js';
import { forkRoutes } from './fork-routes.js';
import { historyRoutes } from './history-routes.js';
import { errorResponse } from './http-errors.js';
import { LiveRuns } from './live-runs.js';
import { openApiRoutes } from './openapi.js';
import type { RouteGroup, ServeContext } from './route-group.js';
import { runRoutes } from './run-routes.js';
import { RunStarter } from './run-starter.js';
import { type ServeOptions, type ServeSettings, serveOptionsSchema } from './serve-options.js';
import { studioRoutes } from './studio/routes.js';
import { threadRoutes } from './thread-routes.js';
import { viewRoutes } from './view-routes.js';

/** A Hono app serving crews and flows over HTTP, and `close` for what it owns. */
export interface StatecrewServer extends Hono {
  /**
   * Stops gracefully: the runs this server runs start no further node, get `shutdownGraceMs` to reach
   * their next commit, then give their leases up, kept `running` for any runner to resume
   * (`run.suspended`); closes the runner it made (the same way) and its run queue. Called again while
   * it drains, it ends the grace at once. The store stays open: the caller owns it.
   */
  close(): Promise<void>;
}

const WHERE = 'createServer';

/** The route groups every server is made of, in mounting order; `/openapi.json` documents them all. */
const ROUTE_GROUPS: readonly RouteGroup[] = [
  definitionRoutes,
  runRoutes,
  admissionRoutes,
  historyRoutes,
  forkRoutes,
  threadRoutes,
  answerRoutes,
  eventRoutes,
  aguiRoutes,
  viewRoutes,
  evalRoutes,
  evalCoverageRoutes,
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

/** The options checked (`invalid_option` naming the first one wrong); a server needs a token unless waived. */
function checkOptions(options: ServeOptions): ServeSettings {
  const settings = parseOptions(serveOptionsSchema, WHERE, options);
  if (settings.token === undefined && settings.insecureNoAuth !== true) {
    throw new InvalidOptionError(
      WHERE,
      'token',
      'a bearer token (or insecureNoAuth: true on 127.0.0.1)',
      settings.token,
      {
        message: `${WHERE}: a server needs a bearer token (option "token"); only one that listens on 127.0.0.1 may go without, with insecureNoAuth: true`,
      },
    );
  }
  return settings;
}

/** The queue options of the `queue` option: a URL is the connection. */
function queueOptionsOf(queue: ServeSettings['queue']): QueueOptions | undefined {
  if (queue === undefined) return undefined;
  return typeof queue === 'string' ? { connection: queue } : queue;
}

/** The app's middleware: CORS when asked, the bearer token unless waived, the body limit. */
function useMiddleware(app: Hono, options: ServeSettings): void {
  const { token, bodyLimit: limit } = options;
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
  app.use(bodyLimit(limit));
  app.onError((error, c) => errorResponse(c, error));
  app.notFound((c) => errorResponse(c, new UnknownEndpointError(c.req.method, c.req.path)));
}

/**
 * Serves crews and flows over HTTP, on Hono: `GET /definitions`, `POST /runs` (a durable run, here or
 * on the run queue; at most `maxActiveRuns` here at once, the rest wait their turn), `GET /admission`, `GET /runs`, `GET /runs/:id`, `POST /runs/:id/resume|signal|abort`, the run's
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
export function createServer(given: ServeOptions): StatecrewServer {
  const options = checkOptions(given);
  const { token } = options;
  const catalog = new Catalog(options.crews, options.flows);
  const live = new LiveRuns();
  const admission = new Admission(options.maxActiveRuns);
  const starter = new RunStarter(options.store, live, admission, queueOptionsOf(options.queue));
  const runner =
    options.runner === undefined
      ? createRunner({
          store: options.store,
          crews: catalog.crews(),
          flows: catalog.flows(),
          shutdownGraceMs: options.shutdownGraceMs,
        })
      : undefined;
  const app = new Hono();
  useMiddleware(app, options);
  const context: ServeContext = { store: options.store, catalog, live, starter, admission };
  const info = { title: 'statecrew', version: '0.1.0', secured: token !== undefined };
  for (const group of [...ROUTE_GROUPS, openApiRoutes(ROUTE_GROUPS, info)]) group.mount(app, context);
  let closing: { stop: GracefulStop; done: Promise<void> } | undefined;
  const close = () => {
    if (closing !== undefined) {
      closing.stop.now();
      void runner?.close();
      return closing.done;
    }
    const stop = new GracefulStop(options.shutdownGraceMs, 'the server closed');
    const done = (async () => {
      const suspended = live.suspendAll(stop);
      // The starts waiting for a place start now, each stopped as it starts (kept for a runner).
      admission.open();
      await Promise.all([suspended, runner?.close()]);
      stop.now();
      await starter.close();
    })();
    closing = { stop, done };
    return done;
  };
  const server = Object.assign(app, { close }) as StatecrewServer;
  liveRunsOf.set(server, live);
  return server;
}
