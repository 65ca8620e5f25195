import type { Hono } from 'hono';
import { forkRefSchema, forkSchema } from './history-schemas.js';
import { jsonBody, parseRequest } from './http-errors.js';
import { COMMON_ERRORS, type RouteGroup, type ServeContext } from './route-group.js';
import { forkRun } from './run-fork.js';
import { errorSchema, idempotencyHeaders, runParamsSchema } from './schemas.js';

const error = (description: string) => ({ description, schema: errorSchema });

const idempotency = idempotencyHeaders(
  "Names the fork: sent again, it answers the same fork rather than start another (the fork's id is the key's)",
);

/** `POST /runs/:id/fork`: a new run from a stored run's checkpoint, with edits, started here. */
export const forkRoutes: RouteGroup = {
  specs: [
    {
      method: 'post',
      path: '/runs/{id}/fork',
      summary:
        "Fork a stored run at a committed checkpoint and run on from there here, as POST /runs starts a run: what came before is kept (no model call for it), with a flow's state, earlier outputs or inputs edited",
      params: runParamsSchema,
      body: forkSchema,
      headers: idempotency,
      responses: {
        202: {
          description: 'The fork started (it holds its id in the store): its id and where it was forked from',
          schema: forkRefSchema,
        },
        400: error(
          `${COMMON_ERRORS[400]} (invalid_request: state for a crew run; invalid_option, invalid_inputs)`,
        ),
        401: error(COMMON_ERRORS[401]),
        404: error(
          'No such run (run_not_found), no served definition of it (unknown_definition), or no committed checkpoint at (checkpoint_not_found)',
        ),
        409: error('The id is taken (run_exists)'),
        413: error('The body is too large (payload_too_large)'),
        422: error('The Idempotency-Key started another run than this fork (idempotency_key_reused)'),
      },
    },
  ],
  mount(app: Hono, context: ServeContext) {
    app.post('/runs/:id/fork', async (c) => {
      const route = 'POST /runs/:id/fork';
      const { id } = parseRequest(route, 'params', runParamsSchema, c.req.param());
      const body = parseRequest(route, 'body', forkSchema, await jsonBody(route, c));
      return c.json(await forkRun(context, c, id, body), 202);
    });
  },
};
