import { z } from 'zod';
import { runIdSchema, runRefSchema } from './schemas.js';

/** The most checkpoints one page of `GET /runs/:id/history` holds, and how many it holds unless asked. */
export const HISTORY_PAGE = { default: 100, max: 1000 } as const;

/** The query of `GET /runs/:id/history`: one page of checkpoints, after a `seq`. */
export const historyQuerySchema = z.strictObject({
  after: z.coerce
    .number()
    .int()
    .min(0)
    .default(0)
    .describe('Only checkpoints after this seq (the next of the previous page)'),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(HISTORY_PAGE.max)
    .default(HISTORY_PAGE.default)
    .describe(`At most this many checkpoints (1–${HISTORY_PAGE.max})`),
});

/** The path parameters of `/runs/:a/diff/:b`. */
export const diffParamsSchema = z.object({ a: runIdSchema, b: runIdSchema });

/** A fork's lineage: the run and the checkpoint it was forked from. */
export const lineageSchema = z.object({
  runId: z.string().describe('The run it was forked from'),
  checkpoint: z.string().describe('The checkpoint (node id) it was forked at'),
});

/** One committed checkpoint: a crew's task run or a flow's step run. */
export const checkpointSchema = z.looseObject({
  checkpoint: z.string().describe('What a fork names as at: the node id'),
  seq: z.number().int().describe('Its place in the commit order, from 1'),
  nodeId: z.string(),
  kind: z.enum(['task', 'step']).describe("A crew's task run, or a flow's step run"),
  name: z.string().describe("The task's or the step's name"),
  at: z.number().describe('When it was committed, in epoch ms'),
  status: z.enum(['completed', 'failed', 'paused']),
  output: z.unknown().describe("The task's raw text, or the step's output (JSON-safe)"),
  structured: z.unknown().optional().describe("A task's structured output"),
  state: z.unknown().optional().describe("Flows: the run's state once the step settled (JSON-safe)"),
  error: z.string().optional(),
  code: z.string().optional(),
});

/** `GET /runs/:id/history`: a run's head facts and one page of its checkpoints. */
export const runHistorySchema = z.object({
  id: z.string(),
  kind: z.enum(['crew', 'flow']),
  name: z.string().describe("The crew's or the flow's name"),
  status: z.string(),
  forkedFrom: lineageSchema.optional().describe('A fork: where it was forked from'),
  thread: z.string().optional().describe('The thread the run belongs to'),
  checkpoints: z.array(checkpointSchema),
  next: z.number().int().optional().describe('Pass it as after for the next page; absent on the last'),
});

/** How one node differs between two runs. */
const nodeDiffSchema = z.object({
  nodeId: z.string(),
  change: z.enum(['added', 'removed', 'changed']),
  fields: z.array(z.enum(['status', 'output', 'state'])),
  a: checkpointSchema.optional(),
  b: checkpointSchema.optional(),
});

/** `GET /runs/:a/diff/:b`: where two runs' paths part, and each node that differs. */
export const runDiffSchema = z.object({
  a: z.string(),
  b: z.string(),
  same: z.boolean().describe('Nothing differs'),
  path: z.object({
    a: z.array(z.string()),
    b: z.array(z.string()),
    same: z.boolean(),
    divergesAt: z.number().int().optional().describe('Where the paths first part'),
  }),
  nodes: z.array(nodeDiffSchema),
});

/** The body of `POST /runs/:id/fork`: where to fork the run, and what to change there. */
export const forkSchema = z.strictObject({
  at: z
    .union([z.string().min(1), z.number().int().min(1)])
    .describe('The checkpoint to fork at: its node id (a checkpoint of GET /runs/{id}/history), or its seq'),
  state: z
    .record(z.string(), z.unknown())
    .optional()
    .describe('Flows only: fields merged over the state the checkpoint left'),
  outputs: z
    .record(z.string(), z.unknown())
    .optional()
    .describe(
      'Outputs of nodes up to the checkpoint to use instead, by node id: raw text, or a structured value',
    ),
  inputs: z
    .record(z.string(), z.unknown())
    .optional()
    .describe('Inputs the fork runs on with, as crew.fork and flow.fork take them'),
  id: runIdSchema.optional().describe("The fork's run id; a new UUID when absent"),
});

/** What `POST /runs/:id/fork` answers: the new run, and where it was forked from. */
export const forkRefSchema = runRefSchema.extend({ forkedFrom: lineageSchema.optional() });

/** The path parameters of `/threads/:thread/runs`. */
export const threadParamsSchema = z.object({
  thread: runIdSchema.describe('The thread runs were kicked off on: 1–512 characters, no NUL'),
});
