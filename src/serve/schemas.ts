import { z } from 'zod';
import { STORED_RUN_STATUSES } from '../stores/store.js';

/** A run id as every store keeps it: 1–512 characters, no NUL. */
export const runIdSchema = z
  .string()
  .min(1)
  .max(512)
  .refine((id) => !id.includes('\u0000'), 'must not hold NUL')
  .describe('A run id: 1–512 characters, no NUL');

/** The path parameters of `/runs/:id`. */
export const runParamsSchema = z.object({ id: runIdSchema });

/** The body of `POST /runs`. */
export const startRunSchema = z.strictObject({
  definition: z.string().min(1).describe('The name of the crew or flow to run'),
  inputs: z
    .record(z.string(), z.unknown())
    .default({})
    .describe("The run's inputs: a crew's {placeholders}, or fields of a flow's state"),
  id: runIdSchema.optional().describe('The run id to use; a new UUID when absent'),
  thread: z
    .string()
    .min(1)
    .max(512)
    .optional()
    .describe(
      "The thread to run on: a flow starts from the state its thread's last run left; a busy thread is refused (thread_busy)",
    ),
});

/** The body of `POST /runs/wait`: a run to start, and how long to wait for it. */
export const startAndWaitSchema = z.strictObject({
  ...startRunSchema.shape,
  timeoutMs: z
    .number()
    .int()
    .min(0)
    .max(300_000)
    .default(30_000)
    .describe('How long to wait for the run to settle or pause, in ms (0–300000); past it the run goes on'),
});

/** The query of `GET /runs`. */
export const listRunsSchema = z.strictObject({
  status: z.enum(STORED_RUN_STATUSES).optional().describe('Only runs with this status'),
  definition: z.string().min(1).optional().describe('Only runs of this crew or flow'),
  thread: z
    .string()
    .min(1)
    .max(512)
    .optional()
    .describe('Only the runs of this thread (as GET /threads/{thread}/runs, but newest first and paged)'),
  createdFrom: z.iso
    .datetime({ offset: true })
    .optional()
    .describe('Only runs created at or after this time (ISO 8601)'),
  createdBefore: z.iso
    .datetime({ offset: true })
    .optional()
    .describe('Only runs created before this time (ISO 8601)'),
  limit: z.coerce.number().int().min(1).max(200).default(50).describe('At most this many runs (1–200)'),
  cursor: z.string().min(1).optional().describe('Where the previous page ended (its nextCursor)'),
});

/** An answer to a tool call waiting for approval. */
export const approvalSchema = z.strictObject({
  approve: z.boolean().describe('Run the call (true), or refuse it (false)'),
  feedback: z.string().optional().describe('Why it was refused, for the model'),
});

/** An answer to a task output waiting for review. */
export const reviewSchema = z
  .strictObject({
    approve: z.boolean().describe('Accept the output (true), or send it back (false)'),
    feedback: z.string().optional().describe('What to change: required when sending it back'),
  })
  .refine((review) => review.approve || review.feedback !== undefined, {
    path: ['feedback'],
    message: 'is required when approve is false',
  });

/** Answers to what a paused crew waits for: tool calls by call id, task outputs by node id. */
export const crewAnswerSchema = z.strictObject({
  approvals: z.record(z.string(), approvalSchema).optional().describe('Answers to tool calls, by callId'),
  reviews: z.record(z.string(), reviewSchema).optional().describe('Answers to task outputs, by nodeId'),
  step: z.string().min(1).optional().describe("A flow's: the step whose crew the answers are for"),
});

/** An answer to a flow's paused human step. */
export const humanAnswerSchema = z.strictObject({
  route: z.string().min(1).describe('The route the human chose'),
  feedback: z.unknown().optional().describe('What the human said with it'),
  step: z.string().min(1).optional().describe('The step answered, when several wait'),
});

/**
 * The body of `POST /runs/:id/resume`: a flow's human answer, a crew's (or a crew step's) answers,
 * or nothing (`{}`) to go on with a run that was aborted or whose process died.
 */
export const resumeSchema = z.union([humanAnswerSchema, crewAnswerSchema]);

/** The branch of {@link resumeSchema} a body means: a human answer when it names a route. */
export function resumeSchemaFor(body: unknown): typeof humanAnswerSchema | typeof crewAnswerSchema {
  return typeof body === 'object' && body !== null && 'route' in body ? humanAnswerSchema : crewAnswerSchema;
}

/** The body of `POST /runs/:id/signal`. */
export const signalSchema = z.strictObject({
  event: z.string().min(1).describe('The event, as the wait steps name it'),
  payload: z.unknown().optional().describe("The event's payload: the wait step's listeners get it"),
});

/** A run as `POST /runs` and the answering routes name it. */
export const runRefSchema = z.object({
  id: z.string(),
  definition: z.string(),
  kind: z.enum(['crew', 'flow']),
});

/** A run as `GET /runs` lists it. */
export const runSummarySchema = runRefSchema.extend({
  status: z.enum(STORED_RUN_STATUSES),
  createdAt: z.string().describe('ISO 8601'),
  updatedAt: z.string().describe('ISO 8601'),
  owner: z.string().nullable().describe('Who runs it now (host:pid), if anyone'),
  forkedFrom: z
    .object({ runId: z.string(), checkpoint: z.string() })
    .optional()
    .describe('A fork: the run and checkpoint (node id) it was forked from'),
  thread: z.string().optional().describe('The thread the run belongs to, if it was kicked off on one'),
});

/** A page of `GET /runs`. */
export const runPageSchema = z.object({
  runs: z.array(runSummarySchema),
  nextCursor: z.string().nullable().describe('Pass it as cursor for the next page; null on the last'),
});

/** One thing a paused run waits for: a flow's step, or a crew's tool call or task output. */
export const pendingSchema = z
  .looseObject({
    kind: z.string().optional().describe("What waits: a flow step's kind, or a crew's approval or review"),
    step: z.string().optional().describe("A flow's step that waits"),
    nodeId: z.string().optional().describe("A crew's task that waits"),
    prompt: z.string().optional(),
    deadline: z.number().optional().describe('Epoch ms past which the answer is refused'),
  })
  .describe('What a paused run waits for');

/** A flow run as its stored snapshot tells it. */
export const flowInfoSchema = z.looseObject({
  id: z.string(),
  flow: z.string(),
  status: z.string(),
  state: z.unknown().describe("The flow's state"),
  trail: z.array(z.string()).describe('The steps run, in order'),
  outputs: z.record(z.string(), z.unknown()).describe("Each step's output, by step"),
  updatedAt: z.number().describe('Epoch ms'),
  pending: pendingSchema.optional(),
  waiting: z.array(pendingSchema).optional(),
});

/** A crew run's execution document. */
export const executionSchema = z.looseObject({
  executionId: z.string(),
  crew: z.string(),
  process: z.string(),
  status: z.string(),
  results: z.array(
    z.looseObject({
      nodeId: z.string(),
      name: z.string(),
      status: z.enum(['completed', 'failed', 'paused']),
      raw: z.string().optional(),
      attempts: z.number(),
    }),
  ),
  output: z.unknown().optional(),
  summary: z.string(),
  startedAt: z.number().describe('Epoch ms'),
  totalTimeMs: z.number().optional(),
});

/** `GET /runs/:id`: the summary, the inputs, and what the kind of run keeps. */
export const runDetailSchema = runSummarySchema.extend({
  live: z.boolean().describe('Whether this server runs it now'),
  inputs: z.record(z.string(), z.unknown()).nullable(),
  flow: flowInfoSchema.optional().describe("A flow run's stored state, trail, outputs and pending steps"),
  execution: executionSchema.optional().describe("A crew run's stored execution document"),
  pending: z.array(pendingSchema).optional().describe('What a paused run waits for'),
});

/** What `POST /runs/:id/abort` answers. */
export const abortedSchema = runRefSchema.extend({ status: z.enum(STORED_RUN_STATUSES) });

/** One entry of `GET /definitions`. */
export const definitionSchema = z.object({
  name: z.string(),
  kind: z.enum(['crew', 'flow']),
  process: z.string().optional().describe("A crew's process"),
  tasks: z.array(z.record(z.string(), z.unknown())).optional(),
  steps: z.array(z.record(z.string(), z.unknown())).optional(),
  inputs: z.record(z.string(), z.unknown()).describe('The inputs, as JSON Schema'),
  mermaid: z.string(),
  machine: z.record(z.string(), z.unknown()).describe('The machine config, as Stately reads it'),
});

/** `GET /definitions`. */
export const definitionsSchema = z.object({ definitions: z.array(definitionSchema) });

/** Every error response. */
export const errorSchema = z.object({
  error: z.object({
    code: z.string().describe('A stable snake_case code'),
    message: z.string(),
    details: z.record(z.string(), z.unknown()),
  }),
});

/** The `Idempotency-Key` header of a route that starts a run, described as `description` says. */
export function idempotencyHeaders(description: string) {
  return z.object({ 'Idempotency-Key': z.string().min(1).max(255).optional().describe(description) });
}
