import { describeMissingInputs, InvalidOptionError, MissingInputError } from '../../errors.js';
import type { MissingInput, MissingInputPlace } from '../../types.js';
import type { Agent } from './agent.js';
import { factsOf } from './crew-facts.js';
import { interpolate, PLACEHOLDER_NAME } from './interpolate.js';
import type { Task } from './task.js';

/**
 * A placeholder as a run fills it: an identifier in single braces. `{{name}}` (a template language's)
 * and JSON (`{"a": 1}`, `{ a }`) are not placeholders.
 */
const PLACEHOLDER = new RegExp(`(?<!\\{)\\{(${PLACEHOLDER_NAME})\\}(?!\\})`, 'g');

/** What finding a run's missing inputs needs of its crew. */
export interface InputSource {
  readonly name: string;
  readonly goal: string;
  readonly tasks: readonly Task[];
  readonly agents: readonly Agent[];
  nodeIdOf(task: Task): string | undefined;
}

/** The placeholder names in `text`, in order, each once. */
function placeholdersIn(text: string): string[] {
  if (!text.includes('{')) return [];
  return [...new Set(Array.from(text.matchAll(PLACEHOLDER), (m) => m[1] as string))];
}

/**
 * The texts of a crew a run fills from its inputs that may hold a placeholder (a `{`), each with where
 * it sits: most texts of a big crew have none, and are passed over without a place made for them.
 */
function* textsOf(
  crew: InputSource,
  inputs: Readonly<Record<string, unknown>>,
): Generator<[string, MissingInputPlace]> {
  const facts = factsOf(crew);
  for (const task of facts.bracedTasks) {
    const { description, expectedOutput, outputFile } = task;
    const nodeId = crew.nodeIdOf(task) ?? task.name ?? '';
    yield [description, { task: nodeId, field: 'description' }];
    yield [expectedOutput, { task: nodeId, field: 'expectedOutput' }];
    if (outputFile !== undefined) yield [outputFile, { task: nodeId, field: 'outputFile' }];
  }
  for (const agent of facts.agents) {
    const role = interpolate(agent.role, inputs);
    yield [agent.role, { agent: role, field: 'role' }];
    yield [agent.goal, { agent: role, field: 'goal' }];
    yield [agent.backstory, { agent: role, field: 'backstory' }];
  }
  yield [crew.goal, { crew: crew.name, field: 'goal' }];
}

/**
 * Every `{identifier}` placeholder of the crew's task descriptions, expected outputs and output file
 * paths, its agents'
 * roles, goals and backstories, and its goal that `inputs` has no own key for, in the order they first
 * appear, each with every place it sits.
 *
 * @example
 * findMissingInputs(crew, {}); // [{ name: 'topic', where: [{ task: 'research', field: 'description' }] }]
 */
export function findMissingInputs(
  crew: InputSource,
  inputs: Readonly<Record<string, unknown>>,
): MissingInput[] {
  const missing = new Map<string, MissingInputPlace[]>();
  for (const [text, place] of textsOf(crew, inputs)) {
    for (const name of placeholdersIn(text)) {
      if (Object.hasOwn(inputs, name)) continue;
      const where = missing.get(name) ?? [];
      where.push(place);
      missing.set(name, where);
    }
  }
  return Array.from(missing, ([name, where]) => ({ name, where }));
}

/** Refuses a `strictInputs` that is not a boolean (`invalid_option`). */
export function checkStrictInputs(where: string, strict: unknown): void {
  if (strict !== undefined && typeof strict !== 'boolean') {
    throw new InvalidOptionError(where, 'strictInputs', 'a boolean', strict);
  }
}

/**
 * The placeholders of a run that no input fills; with `strict`, refused at once (`missing_input`),
 * before any model call.
 */
export function checkMissingInputs(
  crew: InputSource,
  inputs: Readonly<Record<string, unknown>>,
  strict: boolean,
): MissingInput[] {
  const missing = findMissingInputs(crew, inputs);
  if (strict && missing.length > 0) throw new MissingInputError(`Crew "${crew.name}" kickoff`, missing);
  return missing;
}

/** The message of a run's `run.warning` about `missing` placeholders. */
export function missingInputsWarning(missing: readonly MissingInput[]): string {
  return `No input fills ${describeMissingInputs(missing)}: sent to the model as written (pass it in inputs, or set strictInputs to refuse such a run)`;
}
