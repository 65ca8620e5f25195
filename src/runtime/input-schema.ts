import { z } from 'zod';
import type { MissingInputPlace } from '../types.js';
import type { Crew } from './crew/crew.js';
import { findMissingInputs } from './crew/missing-inputs.js';
import type { StateSource } from './flow/definition.js';

/** What a flow's input schema reads of it: how its state is made (any `createFlow(...)` result). */
export interface FlowStateSource {
  readonly definition: { readonly state: StateSource<object> | { kind: 'schema'; schema: z.ZodType } };
}

/** Where a placeholder sits, as a person reads it: `task research (description)`. */
function placeText(place: MissingInputPlace): string {
  if ('task' in place) return `task ${place.task} (${place.field})`;
  if ('agent' in place) return `agent ${place.agent} (${place.field})`;
  return `the crew's ${place.field}`;
}

/**
 * A crew's input schema: one required string per `{placeholder}` of its tasks, agents and goal, each
 * described by where it sits. What served crews (MCP tools, HTTP definitions) advertise and check.
 */
export function crewInputSchema(crew: Crew): z.ZodObject {
  const shape: Record<string, z.ZodString> = {};
  for (const input of findMissingInputs(crew, {})) {
    shape[input.name] = z
      .string()
      .describe(`Fills {${input.name}} in ${input.where.map(placeText).join(', ')}`);
  }
  return z.object(shape);
}

/**
 * A flow's input schema: its zod state schema when it declares one (the inputs must fit it, as a
 * kickoff checks), else an object of any properties merged into its initial state.
 */
export function flowInputSchema(flow: FlowStateSource): z.ZodType {
  const { state } = flow.definition;
  if (state.kind === 'schema') return state.schema;
  return z.looseObject({}).describe(`Merged into the initial state ${describeState(state.initial)}`);
}

/** A free state's keys, for its schema's description. */
function describeState(initial: object): string {
  const keys = Object.keys(initial);
  return keys.length === 0 ? '(empty)' : `(keys: ${keys.join(', ')})`;
}
