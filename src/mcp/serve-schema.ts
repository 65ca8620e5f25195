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

/** The longest description a tool gets: clients show it, and models read it in every request. */
export const MAX_TOOL_DESCRIPTION = 1000;

/** The longest goal a crew tool's description quotes whole. */
const MAX_GOAL = 400;

/** `text` cut to `max` characters, ending with `…` when cut. */
function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1).trimEnd()}…`;
}

/**
 * `names` joined with `, ` within `room` characters: as many as fit, in order, then `… <n> more,
 * <last>` (the last one kept, so the list shows where it ends).
 */
export function namesWithin(names: readonly string[], room: number): string {
  const all = names.join(', ');
  if (all.length <= room || names.length < 2) return cut(all, room);
  const last = names[names.length - 1] as string;
  let shown = 0;
  let length = 0;
  for (const name of names.slice(0, -1)) {
    const next = length + (shown === 0 ? 0 : 2) + name.length;
    const tail = `, … ${names.length - shown - 2} more, ${last}`;
    if (next + tail.length > room) break;
    shown += 1;
    length = next;
  }
  const tail = `… ${names.length - shown - 1} more, ${last}`;
  return shown === 0 ? cut(tail, room) : `${names.slice(0, shown).join(', ')}, ${tail}`;
}

/**
 * A crew tool's description, at most {@link MAX_TOOL_DESCRIPTION} characters: its goal (else its
 * name; a long goal cut), its task count and tasks (a long list summarised: the first ones, how many
 * more, the last).
 */
export function crewDescription(crew: Crew): string {
  const goal = crew.goal.trim();
  const what = goal === '' ? `Runs the crew "${crew.name}".` : cut(goal, MAX_GOAL);
  const tasks = crew.tasks.map((task) => crew.nodeIdOf(task) ?? task.name ?? '').filter((t) => t !== '');
  const head = `${what}${/[.!?…]$/.test(what) ? '' : '.'} Crew "${cut(crew.name, 100)}", ${counted(tasks.length, 'task')}: `;
  return `${head}${namesWithin(tasks, MAX_TOOL_DESCRIPTION - head.length - 1)}.`;
}

/**
 * A flow tool's description, at most {@link MAX_TOOL_DESCRIPTION} characters: its name, its steps
 * (a long list summarised), and whether it may pause for a human or an outside event.
 */
export function flowDescription(flow: ServableFlow): string {
  const { steps } = flow.definition;
  const human = steps.some((step) => step.kind === 'human');
  const wait = steps.some((step) => step.kind === 'wait');
  const why = human && wait ? 'a human or an outside event' : human ? 'a human' : 'an outside event';
  const pauses =
    human || wait ? ` It may pause for ${why}: the result then says what waits and how to go on.` : '';
  const head = `Runs the flow "${cut(flow.name, 100)}" (${counted(steps.length, 'step')}: `;
  const room = MAX_TOOL_DESCRIPTION - head.length - pauses.length - 2;
  return `${head}${namesWithin(
    steps.map((s) => s.name),
    room,
  )}).${pauses}`;
}

/** `<n> <noun>` with the noun in the plural unless n is 1. */
function counted(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
