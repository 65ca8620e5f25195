import { resolve } from 'node:path';
import { toFailure } from '../../actors/failure.js';
import type { TaskRunValue } from '../../actors/task-attempt.js';
import { OutputFileError } from '../../errors.js';
import type { WorkOutcome } from '../../machines/lifecycle.js';
import { interpolate, PLACEHOLDER_NAME } from './interpolate.js';
import { escapeOf, type OutputTarget, writeOutputFile } from './output-write.js';

export type { OutputTarget } from './output-write.js';

/** A text that is a placeholder's name and nothing else. */
const WHOLE_PLACEHOLDER_NAME = new RegExp(`^${PLACEHOLDER_NAME}$`);

/** Where a crew's tasks may write their output files. */
export interface OutputFiles {
  /** The folder relative paths resolve against (absolute). */
  readonly baseDir: string;
  /** Whether a path may leave `baseDir`. */
  readonly allowOutsideFiles: boolean;
}

/** The characters CrewAI's Task refuses in an `output_file` path (its `output_file_validation`). */
const SHELL_CHARACTERS = ['|', '>', '<', '&', ';'];
/** What CrewAI refuses at the start of a path: a shell would expand it. */
const SHELL_EXPANSIONS = ['~', '$'];

/**
 * Why `path` is refused as an output file whatever folder it is in, as CrewAI's Task refuses it: a
 * shell metacharacter (`|`, `>`, `<`, `&`, `;`), a leading `~` or `$`, or a control character
 * (U+0000–U+001F, U+007F); undefined when none is there.
 */
export function refusedCharacterOf(path: string): string | undefined {
  const first = path[0];
  if (first !== undefined && SHELL_EXPANSIONS.includes(first)) {
    return `it starts with "${first}", which a shell would expand`;
  }
  for (const character of path) {
    if (SHELL_CHARACTERS.includes(character)) return `it holds "${character}", a shell metacharacter`;
    const code = character.codePointAt(0) as number;
    if (code < 0x20 || code === 0x7f) {
      const name = `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
      return `it holds ${name}, a control character`;
    }
  }
  return undefined;
}

/**
 * Where task `task` writes its output: `template` with the run's `inputs` filled in, resolved against
 * `files.baseDir`. A path holding a character {@link refusedCharacterOf} refuses throws
 * `output_file_failed`, whatever `files.allowOutsideFiles` says; so does one that leaves `baseDir` —
 * through `..`, as an absolute path elsewhere, or through a symbolic link (a folder's or the file's
 * own) — unless `files.allowOutsideFiles`.
 */
export function outputTarget(
  task: string,
  template: string,
  inputs: Readonly<Record<string, unknown>>,
  files: OutputFiles,
  createFolders = true,
): OutputTarget {
  const filled = interpolate(template, inputs);
  const refused = refusedCharacterOf(filled);
  if (refused !== undefined) {
    const why = filled === template ? refused : `filled from the inputs it is "${filled}": ${refused}`;
    throw new OutputFileError(task, template, why);
  }
  const baseDir = resolve(files.baseDir);
  const path = resolve(baseDir, filled);
  if (files.allowOutsideFiles) return { path, within: undefined, createFolders };
  const outside = escapeOf(baseDir, path);
  if (outside !== undefined) {
    throw new OutputFileError(task, template, `${outside} (the crew's allowOutsideFiles option allows it)`);
  }
  return { path, within: baseDir, createFolders };
}

/**
 * Refuses an output file path holding a `{` whose text up to the next `}` is no placeholder name
 * (`{invalid-name}`, `{}`, `{{topic}}`), as CrewAI's Task refuses it (`Invalid template variable
 * name`): in a path such braces are a mistyped placeholder far more often than a folder's name, and
 * the file would land where nobody looks. Throws `output_file_failed` naming the task and the braces.
 */
function checkBraces(task: string, template: string): void {
  if (!template.includes('{')) return;
  for (const part of template.split('{').slice(1)) {
    const name = part.split('}')[0] as string;
    if (!WHOLE_PLACEHOLDER_NAME.test(name)) {
      throw new OutputFileError(
        task,
        template,
        `{${name}} is not a placeholder: a placeholder's name is a letter or "_", then letters, digits or "_"`,
      );
    }
  }
}

/**
 * Refuses, at construction, an output file path whose braces hold no placeholder name, one holding a
 * character {@link refusedCharacterOf} refuses, or one without `{placeholders}` that leaves the
 * crew's folder: what a path with placeholders becomes is checked when a run's inputs fill them,
 * before any call.
 */
export function checkOutputFile(task: string, template: string | undefined, files: OutputFiles): void {
  if (template === undefined) return;
  checkBraces(task, template);
  const refused = refusedCharacterOf(template);
  if (refused !== undefined) throw new OutputFileError(task, template, refused);
  if (!template.includes('{')) outputTarget(task, template, {}, files);
}

/**
 * `outcome` once its output is written to `target` (the raw text, or pretty JSON for a structured
 * output; folders created): a completed outcome becomes a failure (`output_file_failed`, never retried)
 * when the write fails. Writing the same output again (a resumed run) leaves the same file; the file
 * appears whole or not at all.
 */
export async function writtenOutcome(
  task: string,
  target: OutputTarget,
  outcome: WorkOutcome,
): Promise<WorkOutcome> {
  if (!outcome.ok) return outcome;
  const value = outcome.output as TaskRunValue;
  const text = value.structured !== undefined ? `${JSON.stringify(value.structured, null, 2)}\n` : value.raw;
  try {
    await writeOutputFile(target, text);
    return outcome;
  } catch (error) {
    const why = `the write failed: ${error instanceof Error ? error.message : String(error)}`;
    const failure = new OutputFileError(task, target.path, why, error);
    return { ok: false, error: toFailure(failure), finishedAt: outcome.finishedAt };
  }
}
