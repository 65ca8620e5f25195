import type { Hono } from 'hono';
import { z } from 'zod';
import { threadParamsSchema } from './history-schemas.js';
import { parseRequest } from './http-errors.js';
import { COMMON_ERRORS, type RouteGroup, type ServeContext } from './route-group.js';
import { summaryOf } from './run-views.js';
import { errorSchema, runSummarySchema } from './schemas.js';

const error = (description: string) => ({ description, schema: errorSchema });

/** What `GET /threads/:thread/runs` answers. */
const threadRunsSchema = z.object({
  thread: z.string(),
  runs: z.array(runSummarySchema).describe("The thread's runs, oldest first (none for a thread never used)"),
});

/** `GET /threads/:thread/runs`: the runs kicked off on one thread. */
export const threadRoutes: RouteGroup = {
  specs: [
    {
      method: 'get',
      path: '/threads/{thread}/runs',
      summary: "A thread's runs, oldest first, as GET /runs lists a run",
      params: threadParamsSchema,
      responses: {
        200: { description: "The thread's runs", schema: threadRunsSchema },
        401: error(COMMON_ERRORS[401]),
      },
    },
  ],
  mount(app: Hono, { store }: ServeContext) {
    app.get('/threads/:thread/runs', async (c) => {
      const { thread } = parseRequest(
        'GET /threads/:thread/runs',
        'params',
        threadParamsSchema,
        c.req.param(),
      );
      const heads = await store.listRuns({ thread });
      return c.json({ thread, runs: heads.map(summaryOf) });
    });
  },
};
