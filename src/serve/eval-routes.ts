import type { Hono } from 'hono';
import { EvalNotFoundError } from '../errors.js';
import { listEvalReports, readEvalReport } from '../evals/report-store.js';
import { evalListSchema, evalParamsSchema, evalReportBodySchema } from './eval-schemas.js';
import { parseRequest } from './http-errors.js';
import { COMMON_ERRORS, type RouteGroup, type ServeContext } from './route-group.js';
import { errorSchema } from './schemas.js';

const error = (description: string) => ({ description, schema: errorSchema });
const UNAVAILABLE = error('The store is out of reach (store_unavailable), or closed (store_closed)');

/** `GET /evals` and `GET /evals/:id`: the evaluation reports kept in the server's store. */
export const evalRoutes: RouteGroup = {
  specs: [
    {
      method: 'get',
      path: '/evals',
      summary: "The evaluation reports kept in the server's store (evaluate({ store })), newest first",
      responses: {
        200: { description: "Each kept report's head", schema: evalListSchema },
        401: error(COMMON_ERRORS[401]),
        503: UNAVAILABLE,
      },
    },
    {
      method: 'get',
      path: '/evals/{id}',
      summary: 'One kept evaluation report, whole: its cases with their runs, scores, summary and coverage',
      params: evalParamsSchema,
      responses: {
        200: { description: 'The report', schema: evalReportBodySchema },
        401: error(COMMON_ERRORS[401]),
        404: error('The store keeps no report of that id (eval_not_found)'),
        503: UNAVAILABLE,
      },
    },
  ],
  mount(app: Hono, { store }: ServeContext) {
    app.get('/evals', async (c) => c.json({ reports: await listEvalReports(store) }));
    app.get('/evals/:id', async (c) => {
      const route = 'GET /evals/:id';
      const { id } = parseRequest(route, 'params', evalParamsSchema, c.req.param());
      const report = await readEvalReport(store, id);
      if (report === undefined) throw new EvalNotFoundError(route, id);
      return c.json({ report });
    });
  },
};
