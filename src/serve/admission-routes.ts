import type { Hono } from 'hono';
import { z } from 'zod';
import { COMMON_ERRORS, type RouteGroup, type ServeContext } from './route-group.js';
import { errorSchema } from './schemas.js';

/** What `GET /admission` answers: the bound on active runs, the runs active, the starts waiting. */
export const admissionSchema = z.object({
  maxActiveRuns: z.number().int().describe('The most runs this server starts and runs at once'),
  active: z.number().int().describe('The runs started here that have not settled yet'),
  queued: z
    .number()
    .int()
    .describe('The POST /runs (and /runs/wait) waiting for a run to settle before theirs starts, in order'),
});

/** `GET /admission`: how many runs this server runs, and how many starts wait their turn. */
export const admissionRoutes: RouteGroup = {
  specs: [
    {
      method: 'get',
      path: '/admission',
      summary:
        'The runs this server runs now against its maxActiveRuns, and the starts (POST /runs) waiting for a place',
      responses: {
        200: { description: 'The admission now', schema: admissionSchema },
        401: { description: COMMON_ERRORS[401], schema: errorSchema },
      },
    },
  ],
  mount(app: Hono, { admission }: ServeContext) {
    app.get('/admission', (c) => c.json(admission.state()));
  },
};
