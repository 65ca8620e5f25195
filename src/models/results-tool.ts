import { z } from 'zod';
import type { Tool } from '../types.js';
import { defineTool } from './define-tool.js';

const input = z.object({
  query: z
    .string()
    .optional()
    .describe('What you look for, in words (ranked by meaning when the crew embeds)'),
  task: z.string().optional().describe('Only the results of this task (every iteration of a loop task)'),
  last: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe('How many results at most (the latest ones without a query)'),
});

/** What the tool answers where no execution memory is at hand. */
const NO_MEMORY =
  'No execution memory here: the crew keeps none (`memory` on the crew), or this conversation runs on a worker.';

/**
 * A tool that looks up what earlier task runs of this run produced (the crew's execution memory,
 * `memory` on the crew): by task name, the latest `last` ones, or — with an embedding model — ranked
 * by the meaning of `query`. It answers with JSON: `[{ nodeId, task, agent, iteration?, raw,
 * structured? }]`. Only agents (or tasks) granted it can read the memory.
 *
 * @example
 * const reviser = new Agent({ role: 'Reviser', llm, tools: [createResultsTool()] });
 * new Crew({ tasks, process: 'loop', loop, memory: true });
 */
export function createResultsTool(): Tool<z.infer<typeof input>> {
  return defineTool({
    name: 'results',
    description:
      'Look up what earlier tasks of this run (and earlier iterations of a loop) produced: by task name, the latest ones, or by what you look for.',
    input,
    async execute(args, { signal, memory }) {
      if (memory === undefined) return NO_MEMORY;
      return JSON.stringify(await memory.lookup(args, signal));
    },
  });
}
