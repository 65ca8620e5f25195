import { InvalidOptionError } from '../errors.js';
import type { Crew } from '../runtime/crew/crew.js';
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
