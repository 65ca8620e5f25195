import type { Context, Hono } from 'hono';
import type { z } from 'zod';
import { jsonBody, parseRequest } from './http-errors.js';
import { idempotencyKeyOf, startOnce } from './idempotency.js';
import { COMMON_ERRORS, type RouteGroup, type ServeContext } from './route-group.js';
import { listRuns, runDetail } from './run-views.js';
import { waitForRun } from './run-wait.js';
import {
  errorSchema,
  idempotencyHeaders,
  listRunsSchema,
  runDetailSchema,
  runPageSchema,
  runParamsSchema,
  runRefSchema,
  startAndWaitSchema,
  startRunSchema,
} from './schemas.js';

const error = (description: string) => ({ description, schema: errorSchema });
const idempotency = idempotencyHeaders(
  'Names the run: sent again with the same body, it answers the same run rather than start another',
);
const REUSED =
  'The Idempotency-Key started a run with another definition or other inputs (idempotency_key_reused)';

/** What refuses a run before it starts, as `POST /runs` and `POST /runs/wait` both answer it. */
const startRefusals = () => ({
  400: error(COMMON_ERRORS[400]),
  401: error(COMMON_ERRORS[401]),
  404: error('No served crew or flow has that name (unknown_definition)'),
  409: error("The id is taken (run_exists), or the thread's last run still runs or waits (thread_busy)"),
  413: error('The body is too large (payload_too_large)'),
  422: error(REUSED),
  500: error(COMMON_ERRORS[500]),
  503: error(COMMON_ERRORS[503]),
});

/** `POST /runs`, `GET /runs` and `GET /runs/:id`: starting runs and reading the stored ones. */
export const runRoutes: RouteGroup = {
  specs: [
    {
      method: 'post',
      path: '/runs',
      summary: 'Start a durable run of a crew or flow (here, or on the run queue)',
      body: startRunSchema,
      headers: idempotency,
      responses: {
        202: { description: 'The run started (it holds its id in the store)', schema: runRefSchema },
        ...startRefusals(),
      },
    },
    {
      method: 'post',
      path: '/runs/wait',
      summary:
        'Start a run as POST /runs does (Idempotency-Key too), and answer once it settled or paused, or timeoutMs passed',
      body: startAndWaitSchema,
      headers: idempotency,
      responses: {
        200: {
          description: 'The run settled or paused: the run as GET /runs/{id} gives it',
          schema: runDetailSchema,
        },
        202: {
          description:
            'The time passed first: the run as it is now (status running); it goes on, GET /runs/{id} follows it',
          schema: runDetailSchema,
        },
        ...startRefusals(),
      },
    },
    {
      method: 'get',
      path: '/runs',
      summary: 'The stored runs, newest first, a page at a time',
      query: listRunsSchema,
      responses: {
        200: { description: 'One page of runs', schema: runPageSchema },
        400: error(COMMON_ERRORS[400]),
        401: error(COMMON_ERRORS[401]),
      },
    },
    {
      method: 'get',
      path: '/runs/{id}',
      summary: 'One stored run: status, inputs, and its flow state or crew execution document',
      params: runParamsSchema,
      responses: {
        200: { description: 'The run', schema: runDetailSchema },
        401: error(COMMON_ERRORS[401]),
        404: error('The store holds no such run (run_not_found)'),
      },
    },
  ],
  mount(app: Hono, { catalog, store, live, starter }: ServeContext) {
    /** Starts the run a body asks for, once per `Idempotency-Key`; says whether it was started before. */
    const start = async (c: Context, route: string, body: z.output<typeof startRunSchema>) => {
      const served = catalog.get(body.definition);
      const key = idempotencyKeyOf(c, route, body.id);
      if (key === undefined)
        return { ref: await starter.start(served, body.inputs, body.id, body.thread), replayed: false };
      const asked = { inputs: body.inputs, thread: body.thread };
      const started = await startOnce(store, key, served, asked, (id) =>
        starter.start(served, body.inputs, id, body.thread),
      );
      if (started.replayed) c.header('Idempotent-Replayed', 'true');
      return started;
    };
    app.post('/runs', async (c) => {
      const route = 'POST /runs';
      const body = parseRequest(route, 'body', startRunSchema, await jsonBody(route, c));
      return c.json((await start(c, route, body)).ref, 202);
    });
    app.post('/runs/wait', async (c) => {
      const route = 'POST /runs/wait';
      const body = parseRequest(route, 'body', startAndWaitSchema, await jsonBody(route, c));
      const { ref } = await start(c, route, body);
      await waitForRun(store, live, ref.id, body.timeoutMs);
      const detail = await runDetail(store, live, ref.id);
      return c.json(detail, detail.status === 'running' ? 202 : 200);
    });
    app.get('/runs', async (c) => {
      const query = parseRequest('GET /runs', 'query', listRunsSchema, c.req.query());
      return c.json(await listRuns(store, query));
    });
    app.get('/runs/:id', async (c) => {
      const { id } = parseRequest('GET /runs/:id', 'params', runParamsSchema, c.req.param());
      return c.json(await runDetail(store, live, id));
    });
  },
};
