import { resolve } from 'node:path';
import { toFailure } from '../../actors/failure.js';
import type { TaskRunValue } from '../../actors/task-attempt.js';
import { OutputFileError } from '../../errors.js';
import type { WorkOutcome } from '../../machines/lifecycle.js';
import { interpolate } from './interpolate.js';
import { escapeOf, type OutputTarget, writeOutputFile } from './output-write.js';

export type { OutputTarget } from './output-write.js';

/** Where a crew's tasks may write their output files. */
export interface OutputFiles {
  /** The folder relative paths resolve against (absolute). */
  readonly baseDir: string;
  /** Whether a path may leave `baseDir`. */
  readonly allowOutsideFiles: boolean;
}

/**
 * Where task `task` writes its output: `template` with the run's `inputs` filled in, resolved against
 * `files.baseDir`. A path that leaves `baseDir` — through `..`, as an absolute path elsewhere, or
 * through a symbolic link (a folder's or the file's own) — throws `output_file_failed` unless
 * `files.allowOutsideFiles`.
 */
export function outputTarget(
  task: string,
  template: string,
  inputs: Readonly<Record<string, unknown>>,
  files: OutputFiles,
): OutputTarget {
  const baseDir = resolve(files.baseDir);
  const path = resolve(baseDir, interpolate(template, inputs));
  if (files.allowOutsideFiles) return { path, within: undefined };
  const outside = escapeOf(baseDir, path);
  if (outside !== undefined) {
    throw new OutputFileError(task, template, `${outside} (the crew's allowOutsideFiles option allows it)`);
  }
  return { path, within: baseDir };
}

/**
 * Refuses, at construction, an output file path without `{placeholders}` that leaves the crew's folder:
 * one with placeholders is checked when a run's inputs fill them, before any call.
 */
export function checkOutputFile(task: string, template: string | undefined, files: OutputFiles): void {
  if (template !== undefined && !template.includes('{')) outputTarget(task, template, {}, files);
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
