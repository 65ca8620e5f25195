import { z } from 'zod';

/**
 * The output schemas of served tools: what their `structuredContent` holds, whichever way a run
 * ended. Objects stay open (`additionalProperties` allowed), so a client that validates results
 * against an older listing still accepts a newer server's.
 */

/** A run that could not start, or was aborted: its error's code and message. */
const errorShape = z
  .looseObject({ code: z.string(), message: z.string() })
  .describe(
    'Why the run could not start or was aborted: the error code (store_required, aborted, …) and message',
  );

/** The failures of a run, by task or step: each with its message and code. */
const failuresShape = z
  .record(
    z.string(),
    z.looseObject({
      message: z.string(),
      code: z.string().optional(),
      retryable: z.boolean().optional(),
      handled: z.boolean().optional(),
    }),
  )
  .describe('Each failed task or step, by name: its message and error code');

/** A crew's item waiting for a human: a tool call to approve, or an output to review. */
const crewPendingShape = z
  .looseObject({ kind: z.enum(['approval', 'review']), nodeId: z.string() })
  .describe('A tool call waiting for approval, or a task output waiting for review');

/** The run's id, for crews and flows alike (absent when the run could not start). */
const executionId = z
  .string()
  .describe('The run’s id: what `statecrew resume`, `statecrew signal` and `statecrew show` take')
  .optional();

/** The structured content of a crew tool's result. */
export const crewOutputSchema = z.looseObject({
  status: z
    .enum(['completed', 'partial', 'failed', 'paused'])
    .describe('How the run ended; `failed` also for a run that could not start or was aborted (see `error`)'),
  executionId,
  raw: z.string().describe('The final task’s text output').optional(),
  tasks: z
    .array(z.looseObject({ name: z.string(), raw: z.string() }))
    .describe('Every completed task’s text output, in completion order')
    .optional(),
  pending: z.array(crewPendingShape).describe('A paused run: what waits for a human').optional(),
  failures: failuresShape.optional(),
  error: errorShape.optional(),
});

/** A flow step a paused run waits for: a human's answer, an outside event, or a crew's human. */
const waitingStepShape = z
  .looseObject({
    kind: z.enum(['human', 'event', 'crew']),
    step: z.string(),
    nodeId: z.string(),
    prompt: z.string().describe('A human step: what it asks').optional(),
    routes: z.array(z.string()).describe('A human step: the answers it takes').optional(),
    event: z.string().describe('A wait step: the event that completes it').optional(),
    timeoutAt: z.number().describe('When the step times out, in epoch ms').optional(),
  })
  .describe('A step the paused run waits for');

/** The structured content of a flow tool's result. */
export const flowOutputSchema = z.looseObject({
  status: z
    .enum(['completed', 'failed', 'paused'])
    .describe('How the run ended; `failed` also for a run that could not start or was aborted (see `error`)'),
  executionId,
  state: z.looseObject({}).describe('The flow’s state as the run left it').optional(),
  output: z.unknown().describe('The last step’s output').optional(),
  trail: z.array(z.string()).describe('The steps that completed, in order').optional(),
  pending: waitingStepShape.optional(),
  waiting: z.array(waitingStepShape).describe('A paused run: every step it waits for').optional(),
  events: z
    .array(z.string())
    .describe('A paused run: the events its wait steps wait for (`statecrew signal <id> <event>`)')
    .optional(),
  failures: failuresShape.optional(),
  error: errorShape.optional(),
});
