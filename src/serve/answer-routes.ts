import type { Hono } from 'hono';
import type { z } from 'zod';
import { jsonBody, parseRequest } from './http-errors.js';
import { COMMON_ERRORS, type RouteGroup, type ServeContext } from './route-group.js';
import { abortRun, type ResumeAnswer, resumeRun, signalRun } from './run-answers.js';
import {
  abortedSchema,
  errorSchema,
  resumeSchema,
  resumeSchemaFor,
  runParamsSchema,
  runRefSchema,
  signalSchema,
} from './schemas.js';

const error = (description: string) => ({ description, schema: errorSchema });
const UNKNOWN = error('No such run (run_not_found), or no served definition of it (unknown_definition)');

/** An answer with nothing in it (`{}`) is no answer: the run goes on as it was left. */
function answerOf(body: z.output<typeof resumeSchema>): ResumeAnswer {
  // Parsed from JSON, so no key holds undefined: zod's `?: T | undefined` is the answer's `?: T`.
  return Object.keys(body).length === 0 ? undefined : (body as ResumeAnswer);
}

/** `POST /runs/:id/resume`, `/signal` and `/abort`: what moves a stored or live run on, or stops it. */
export const answerRoutes: RouteGroup = {
  specs: [
    {
      method: 'post',
      path: '/runs/{id}/resume',
      summary:
        "Answer a paused run and go on with it here: a flow's { route, feedback?, step? }, a crew's { approvals } or { reviews }; {} goes on with an aborted run",
      params: runParamsSchema,
      body: resumeSchema,
      responses: {
        202: { description: 'The run was claimed and goes on here', schema: runRefSchema },
        400: error(`${COMMON_ERRORS[400]} (answer_required, unknown_route)`),
        401: error(COMMON_ERRORS[401]),
        404: UNKNOWN,
        409: error(
          'The run is not paused (not_paused), the step answered is past its deadline (deadline_passed), or another owner runs it (run_locked)',
        ),
        413: error('The body is too large (payload_too_large)'),
      },
    },
    {
      method: 'post',
      path: '/runs/{id}/signal',
      summary:
        'Send an outside event to a paused flow run: the steps waiting for it complete, the run goes on here',
      params: runParamsSchema,
      body: signalSchema,
      responses: {
        202: { description: 'The run took the event and goes on here', schema: runRefSchema },
        400: error(COMMON_ERRORS[400]),
        401: error(COMMON_ERRORS[401]),
        404: UNKNOWN,
        409: error(
          'Nothing waits for the event (no_waiter), the steps waiting for it are past their deadline (deadline_passed), or another owner runs it (run_locked)',
        ),
        413: error('The body is too large (payload_too_large)'),
      },
    },
    {
      method: 'post',
      path: '/runs/{id}/abort',
      summary:
        'Abort a run this server runs, or one a worker of its run queue runs; answers once it is kept as aborted',
      params: runParamsSchema,
      responses: {
        200: { description: 'The run stopped and is kept as aborted', schema: abortedSchema },
        401: error(COMMON_ERRORS[401]),
        404: error('The store holds no such run (run_not_found)'),
        409: error('Another owner runs it (run_locked), or nothing does (not_running)'),
      },
    },
  ],
  mount(app: Hono, context: ServeContext) {
    app.post('/runs/:id/resume', async (c) => {
      const route = 'POST /runs/:id/resume';
      const { id } = parseRequest(route, 'params', runParamsSchema, c.req.param());
      const raw = await jsonBody(route, c);
      // Checked against the branch it means, so an issue names its field rather than the union.
      const body = parseRequest(route, 'body', resumeSchemaFor(raw), raw);
      return c.json(await resumeRun(context, id, answerOf(body)), 202);
    });
    app.post('/runs/:id/signal', async (c) => {
      const route = 'POST /runs/:id/signal';
      const { id } = parseRequest(route, 'params', runParamsSchema, c.req.param());
      const body = parseRequest(route, 'body', signalSchema, await jsonBody(route, c));
      return c.json(await signalRun(context, id, body.event, body.payload), 202);
    });
    app.post('/runs/:id/abort', async (c) => {
      const { id } = parseRequest('POST /runs/:id/abort', 'params', runParamsSchema, c.req.param());
      return c.json(await abortRun(context, id));
    });
  },
};
