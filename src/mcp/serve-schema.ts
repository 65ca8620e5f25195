import { z } from 'zod';
import { InvalidOptionError } from '../errors.js';
import type { Crew } from '../runtime/crew/crew.js';
import { findMissingInputs } from '../runtime/crew/missing-inputs.js';
import type { MissingInputPlace } from '../types.js';
import type { ServableFlow } from './serve-call.js';

/** The longest tool name providers accept. */
const MAX_TOOL_NAME = 64;

/**
 * A served definition's key as a tool name providers accept: every character outside
 * `[A-Za-z0-9_-]` becomes `_`, and the name is cut at 64 characters.
 */
export function toolNameOf(key: string): string {
  return key.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, MAX_TOOL_NAME);
}

/**
 * The tool names of the served keys, in order; `invalid_option` for an empty key, or for two keys
 * that become the same tool name.
 */
export function toolNames(where: string, keys: readonly string[]): Map<string, string> {
  const byName = new Map<string, string>();
  for (const key of keys) {
    const name = toolNameOf(key);
    if (name === '') throw new InvalidOptionError(where, 'crews/flows', 'keys that are not empty', key);
    const taken = byName.get(name);
    if (taken !== undefined) {
      throw new InvalidOptionError(where, 'crews/flows', 'keys that give distinct tool names', key, {
        message: `${where}: "${taken}" and "${key}" both become MCP tool "${name}": rename one`,
      });
    }
    byName.set(name, key);
  }
  return new Map(Array.from(byName, ([name, key]) => [key, name]));
}

/** Where a placeholder sits, as a person reads it: `task research (description)`. */
function placeText(place: MissingInputPlace): string {
  if ('task' in place) return `task ${place.task} (${place.field})`;
  if ('agent' in place) return `agent ${place.agent} (${place.field})`;
  return `the crew's ${place.field}`;
}

/** A crew's input schema: one required string per `{placeholder}` of its tasks, agents and goal. */
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
export function flowInputSchema(flow: ServableFlow): z.ZodType {
  const { state } = flow.definition;
  if (state.kind === 'schema') return state.schema;
  return z.looseObject({}).describe(`Merged into the initial state ${describeState(state.initial)}`);
}

/** A free state's keys, for its tool's schema description. */
function describeState(initial: object): string {
  const keys = Object.keys(initial);
  return keys.length === 0 ? '(empty)' : `(keys: ${keys.join(', ')})`;
}

/** A crew tool's description: its goal (else its name), then its tasks. */
export function crewDescription(crew: Crew): string {
  const what = crew.goal.trim() === '' ? `Runs the crew "${crew.name}".` : crew.goal.trim();
  const tasks = crew.tasks.map((task) => crew.nodeIdOf(task) ?? task.name ?? '').filter((t) => t !== '');
  return `${what}${/[.!?]$/.test(what) ? '' : '.'} Crew "${crew.name}", tasks: ${tasks.join(', ')}.`;
}

/** A flow tool's description: its name and steps, and whether it may pause for a human. */
export function flowDescription(flow: ServableFlow): string {
  const { steps } = flow.definition;
  const human = steps.some((step) => step.kind === 'human' || step.kind === 'wait');
  const pauses = human ? ' It may pause for a human: the result then names the run to resume.' : '';
  return `Runs the flow "${flow.name}" (steps: ${steps.map((s) => s.name).join(', ')}).${pauses}`;
}
