import type { Context, Hono } from 'hono';
import { z } from 'zod';
import { RunNotFoundError } from '../errors.js';
import { lastStoredSeq } from '../runtime/durable/event-record.js';
import { headFacts } from '../runtime/durable/history-page.js';
import { answerInterrupts, resumeEntrySchema } from './agui-resume.js';
import { type AguiPosition, aguiPositionOf, aguiWriter } from './agui-stream.js';
import { streamRunEvents } from './event-stream.js';
import { jsonBody, parseRequest } from './http-errors.js';
import { COMMON_ERRORS, type RouteGroup, type ServeContext } from './route-group.js';
import { errorSchema, runParamsSchema } from './schemas.js';

const error = (description: string) => ({ description, schema: errorSchema });
const STREAM =
  'text/event-stream: AG-UI events, each with its own id <seq>:<index>; what is kept so far, then live until the run settles or pauses';

/** The body of `POST /runs/:id/agui`: AG-UI's `RunAgentInput`, of which statecrew reads two fields. */
export const aguiInputSchema = z
  .looseObject({
    messages: z
      .array(z.unknown())
      .optional()
      .describe('The messages the client holds: their events are not sent again'),
    resume: z
      .array(resumeEntrySchema)
      .optional()
      .describe('Answers to the interrupts the last AG-UI run ended with: the run goes on with them'),
  })
  .describe(
    "AG-UI's RunAgentInput (threadId, runId, tools, context, state… are taken and ignored: the run is the path's, and the threadId of its events is its thread, else its id)",
  );

const lastEventIdHeader = z.object({
  'Last-Event-ID': z
    .string()
    .optional()
    .describe('The id of the last AG-UI event received, <seq>:<index>: the stream goes on after it'),
});

const positionQuery = z.object({
  after: z
    .string()
    .optional()
    .describe('Only the AG-UI events after this id, <seq> or <seq>:<index> (else the Last-Event-ID header)'),
});

/** The ids of the messages and tool calls in an input's `messages`. */
function knownIdsOf(messages: readonly unknown[]): Set<string> {
  const ids = new Set<string>();
  for (const message of messages) {
    const { id, toolCalls } = (message ?? {}) as { id?: unknown; toolCalls?: unknown };
    if (typeof id === 'string') ids.add(id);
    if (!Array.isArray(toolCalls)) continue;
    for (const call of toolCalls as { id?: unknown }[]) if (typeof call?.id === 'string') ids.add(call.id);
  }
  return ids;
}

/**
 * The AG-UI stream of run `id` after the position the client asks for; read from the start, it leaves
 * out the messages the client holds (`known`).
 */
async function aguiStream(context: ServeContext, c: Context, route: string, known: Set<string>) {
  const { id } = parseRequest(route, 'params', runParamsSchema, c.req.param());
  const from: AguiPosition = aguiPositionOf(c, route);
  const head = await context.store.readRun(id);
  if (context.live.get(id) === undefined && head === undefined) throw new RunNotFoundError(route, id);
  const { thread } = headFacts(head);
  const writer = aguiWriter(id, from.seq === 0 ? { known, thread } : { from, thread });
  return streamRunEvents(c, context.store, id, 0, writer);
}

/** `GET` and `POST /runs/:id/agui`: a run as AG-UI events, and its interrupts answered the AG-UI way. */
export const aguiRoutes: RouteGroup = {
  specs: (['get', 'post'] as const).map((method) => ({
    method,
    path: '/runs/{id}/agui',
    summary:
      method === 'get'
        ? 'The run as AG-UI protocol events (server-sent), for AG-UI clients'
        : "The run as AG-UI protocol events, for an AG-UI client's runAgent: with resume entries, the interrupts are answered first and the stream holds what the run does next",
    params: runParamsSchema,
    query: positionQuery,
    headers: lastEventIdHeader,
    ...(method === 'post' ? { body: aguiInputSchema } : {}),
    responses: {
      200: { description: STREAM, media: 'text/event-stream' as const },
      400: error(
        `${COMMON_ERRORS[400]} (invalid_option: a bad after or Last-Event-ID${method === 'post' ? '; invalid_request: a resume entry that names no interrupt, or whose payload does not fit its responseSchema; answer_required, unknown_route' : ''})`,
      ),
      401: error(COMMON_ERRORS[401]),
      404: error('No such run (run_not_found), or no served definition of it (unknown_definition)'),
      ...(method === 'post'
        ? {
            409: error(
              'The run is not paused: another answer was taken first (not_paused); another owner runs it (run_locked); the step is past its deadline (deadline_passed); nothing waits for the event (no_waiter)',
            ),
            413: error('The body is too large (payload_too_large)'),
          }
        : {}),
    },
  })),
  mount(app: Hono, context: ServeContext) {
    app.get('/runs/:id/agui', (c) => aguiStream(context, c, 'GET /runs/:id/agui', new Set()));
    app.post('/runs/:id/agui', async (c) => {
      const route = 'POST /runs/:id/agui';
      const { id } = parseRequest(route, 'params', runParamsSchema, c.req.param());
      const body = parseRequest(route, 'body', aguiInputSchema, await jsonBody(route, c));
      const resume = body.resume ?? [];
      if (resume.length === 0) return aguiStream(context, c, route, knownIdsOf(body.messages ?? []));
      // What the run kept before the answer: the stream holds what it does with it.
      const before = await lastStoredSeq(context.store, id);
      await answerInterrupts(context, id, resume);
      const { thread } = headFacts(await context.store.readRun(id));
      return streamRunEvents(c, context.store, id, 0, aguiWriter(id, { from: { seq: before }, thread }));
    });
  },
};
