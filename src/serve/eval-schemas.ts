import { z } from 'zod';
import { evalReportSchema } from '../evals/report-check.js';
import { runIdSchema } from './schemas.js';

/** The path parameters of `/evals/:id`. */
export const evalParamsSchema = z.object({
  id: runIdSchema.describe("An evaluation report's id: 1–512 characters, no NUL"),
});

/** A kept report's head, as `GET /evals` lists it. */
export const evalReportHeadSchema = z.object({
  id: z.string(),
  target: z
    .object({ kind: z.enum(['crew', 'flow']), name: z.string() })
    .describe('The crew or flow evaluated'),
  startedAt: z.string().describe('When the evaluation started, ISO 8601'),
  runs: z.number().int().describe('How many runs it made (cases × iterations)'),
  means: z.record(z.string(), z.number()).describe("Each scorer's mean score (0–1), by name"),
  coverage: z.number().describe('The share of the flow paths (a crew: its task order) some run took, 0–1'),
});

/** What `GET /evals` answers. */
export const evalListSchema = z.object({
  reports: z.array(evalReportHeadSchema).describe('The kept reports, newest first'),
});

/** What `GET /evals/:id` answers. */
export const evalReportBodySchema = z.object({
  report: evalReportSchema.describe('The report as evaluate wrote it (format 1)'),
});
