import { z } from 'zod';
import { checkedBy, unchecked } from '../options/option.js';
import { keepsEventsOption } from '../runtime/durable/events-option.js';

/** The options of `runQueue.submitRun(name, inputs, options)`: each option's type, check and docs, once. */
export const submitRunOptionsSchema = z.strictObject({
  /** The run's execution id. @default a new UUID */
  id: unchecked<string>().optional(),
  /** `'store'`: the run keeps its events in its store (`readEvents`, `followEvents`), as `kickoff` does. */
  events: checkedBy<'store'>("'store' (keep the run's events in its store)", keepsEventsOption).optional(),
});

/** Options of {@link RunQueue.submitRun}. */
export interface SubmitRunOptions extends z.input<typeof submitRunOptionsSchema> {}
