import type { Context, Hono } from 'hono';
import { z } from 'zod';
import { RunNotFoundError } from '../errors.js';
import { lastStoredSeq } from '../runtime/durable/event-record.js';
import { afterOf, RECONNECT_MS, statecrewWriter, streamRunEvents } from './event-stream.js';
import { parseRequest } from './http-errors.js';
import { COMMON_ERRORS, type RouteGroup, type ServeContext } from './route-group.js';
import { errorSchema, runParamsSchema } from './schemas.js';

const error = (description: string) => ({ description, schema: errorSchema });
const afterQuery = z.object({
  after: z
    .string()
    .optional()
    .describe('Only events numbered after this one (else the Last-Event-ID header)'),
});
const lastEventIdHeader = z.object({
  'Last-Event-ID': z
    .string()
    .optional()
    .describe('The number of the last event received: the stream goes on after it (an EventSource sends it)'),
});
const STREAM = 'text/event-stream: the events kept so far, then live until the run settles or pauses';

/**
 * Whether run `id` has nothing more to send after event `after`: not running here nor anywhere
 * (settled or paused) and no kept event numbered after it — an `EventSource` told 204 stops
 * reconnecting. Throws `run_not_found` for no such run.
 */
async function endedAfter(context: ServeContext, route: string, id: string, after: number): Promise<boolean> {
  if (context.live.get(id) !== undefined) return false;
  // The head first: what its last change committed is in the store when the events are read.
  const head = await context.store.readRun(id);
  if (head === undefined) throw new RunNotFoundError(route, id);
  if (head.status === 'running') return false;
  return (await lastStoredSeq(context.store, id)) <= after;
}

/** The event stream of a run, statecrew's own (the AG-UI protocol's: `aguiRoutes`). */
export const eventRoutes: RouteGroup = {
  specs: [
    {
      method: 'get',
      path: '/runs/{id}/events',
      summary:
        "A run's events as server-sent events, from the start or after Last-Event-ID (each message: one event's JSON; its id: the event's number)",
      params: runParamsSchema,
      query: afterQuery,
      headers: lastEventIdHeader,
      responses: {
        200: { description: `${STREAM}; it opens with retry: ${RECONNECT_MS}`, media: 'text/event-stream' },
        204: {
          description:
            'The run settled or paused and no event is kept after the one asked for: nothing more to send (an EventSource stops reconnecting)',
        },
        400: error(`${COMMON_ERRORS[400]} (invalid_option: a bad after or Last-Event-ID)`),
        401: error(COMMON_ERRORS[401]),
        404: error('No such run (run_not_found)'),
      },
    },
  ],
  mount(app: Hono, context: ServeContext) {
    app.get('/runs/:id/events', async (c: Context) => {
      const route = 'GET /runs/:id/events';
      const { id } = parseRequest(route, 'params', runParamsSchema, c.req.param());
      const after = afterOf(c);
      const ended = await endedAfter(context, route, id, after);
      if (ended) return c.body(null, 204);
      return streamRunEvents(c, context.store, id, after, statecrewWriter, RECONNECT_MS);
    });
  },
};
