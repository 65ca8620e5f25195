import type { Hono } from 'hono';
import { jsonBody, parseRequest } from './http-errors.js';
import { COMMON_ERRORS, type RouteGroup, type ServeContext } from './route-group.js';
import { listRuns, runDetail } from './run-views.js';
import {
  errorSchema,
  listRunsSchema,
  runDetailSchema,
  runPageSchema,
  runParamsSchema,
  runRefSchema,
  startRunSchema,
} from './schemas.js';

const error = (description: string) => ({ description, schema: errorSchema });

/** `POST /runs`, `GET /runs` and `GET /runs/:id`: starting runs and reading the stored ones. */
export const runRoutes: RouteGroup = {
  specs: [
    {
      method: 'post',
      path: '/runs',
      summary: 'Start a durable run of a crew or flow (here, or on the run queue)',
      body: startRunSchema,
      responses: {
        202: { description: 'The run started (it holds its id in the store)', schema: runRefSchema },
        400: error(COMMON_ERRORS[400]),
        401: error(COMMON_ERRORS[401]),
        404: error('No served crew or flow has that name (unknown_definition)'),
        409: error('The id is taken (run_exists)'),
        413: error('The body is too large (payload_too_large)'),
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
    app.post('/runs', async (c) => {
      const route = 'POST /runs';
      const body = parseRequest(route, 'body', startRunSchema, await jsonBody(route, c));
      const served = catalog.get(body.definition);
      return c.json(await starter.start(served, body.inputs, body.id), 202);
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
