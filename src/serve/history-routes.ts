import type { Hono } from 'hono';
import { isStatecrewError, RunNotFoundError } from '../errors.js';
import { diffRuns } from '../runtime/history/diff.js';
import { readHistory } from '../runtime/history/history.js';
import type { Store } from '../stores/store.js';
import type { HistoryOptions, RunHistory } from '../types.js';
import {
  diffParamsSchema,
  HISTORY_PAGE,
  historyQuerySchema,
  runDiffSchema,
  runHistorySchema,
} from './history-schemas.js';
import { parseRequest } from './http-errors.js';
import { jsonSafe } from './json-safe.js';
import { COMMON_ERRORS, type RouteGroup, type ServeContext } from './route-group.js';
import { errorSchema, runParamsSchema } from './schemas.js';

const error = (description: string) => ({ description, schema: errorSchema });

/** The history of run `id` (one page of it), `run_not_found` naming `route` when the store holds none. */
async function historyOf(store: Store, route: string, id: string, page: HistoryOptions): Promise<RunHistory> {
  try {
    return await readHistory(store, id, page);
  } catch (failure) {
    if (isStatecrewError(failure, 'run_not_found')) throw new RunNotFoundError(route, id);
    throw failure;
  }
}

/** `GET /runs/:id/history` and `GET /runs/:a/diff/:b`: a run's committed checkpoints, and two runs compared. */
export const historyRoutes: RouteGroup = {
  specs: [
    {
      method: 'get',
      path: '/runs/{id}/history',
      summary: `A run's committed checkpoints in commit order (a crew's task runs, a flow's step runs with the state each left), ${HISTORY_PAGE.default} a page unless limit says (at most ${HISTORY_PAGE.max})`,
      params: runParamsSchema,
      query: historyQuerySchema,
      responses: {
        200: { description: 'One page of the history; next when more follow', schema: runHistorySchema },
        401: error(COMMON_ERRORS[401]),
        404: error('The store holds no such run (run_not_found)'),
      },
    },
    {
      method: 'get',
      path: '/runs/{a}/diff/{b}',
      summary:
        'Two runs compared (a fork beside its source is the common case): where their paths part, and each node whose status, output or state differs',
      params: diffParamsSchema,
      responses: {
        200: { description: 'The difference, from a to b', schema: runDiffSchema },
        401: error(COMMON_ERRORS[401]),
        404: error('The store holds no run of one of the ids (run_not_found)'),
      },
    },
  ],
  mount(app: Hono, { store }: ServeContext) {
    app.get('/runs/:id/history', async (c) => {
      const route = 'GET /runs/:id/history';
      const { id } = parseRequest(route, 'params', runParamsSchema, c.req.param());
      const page = parseRequest(route, 'query', historyQuerySchema, c.req.query());
      return c.json(jsonSafe(await historyOf(store, route, id, page)));
    });
    app.get('/runs/:a/diff/:b', async (c) => {
      const route = 'GET /runs/:a/diff/:b';
      const { a, b } = parseRequest(route, 'params', diffParamsSchema, c.req.param());
      const [first, second] = await Promise.all([
        historyOf(store, route, a, {}),
        historyOf(store, route, b, {}),
      ]);
      return c.json(jsonSafe(diffRuns(first, second)));
    });
  },
};
