import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { toFailure } from '../../actors/failure.js';
import type { TaskRunValue } from '../../actors/task-attempt.js';
import { OutputFileError } from '../../errors.js';
import type { WorkOutcome } from '../../machines/lifecycle.js';
import { interpolate } from './interpolate.js';

/** Where a crew's tasks may write their output files. */
export interface OutputFiles {
  /** The folder relative paths resolve against (absolute). */
  readonly baseDir: string;
  /** Whether a path may leave `baseDir`. */
  readonly allowOutsideFiles: boolean;
}

/**
 * The absolute path task `task` writes its output to: `template` with the run's `inputs` filled in,
 * resolved against `files.baseDir`. A path that leaves `baseDir` (through `..` or as an absolute path
 * elsewhere) throws `output_file_failed` unless `files.allowOutsideFiles`.
 */
export function outputPath(
  task: string,
  template: string,
  inputs: Readonly<Record<string, unknown>>,
  files: OutputFiles,
): string {
  const path = resolve(files.baseDir, interpolate(template, inputs));
  if (!files.allowOutsideFiles && !inside(files.baseDir, path)) {
    throw new OutputFileError(
      task,
      template,
      `it resolves to ${path}, outside the crew's folder ${files.baseDir} (the crew's allowOutsideFiles option allows it)`,
    );
  }
  return path;
}

/** Whether `path` is `base` or lies below it. */
function inside(base: string, path: string): boolean {
  const rel = relative(base, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/**
 * Refuses, at construction, an output file path without `{placeholders}` that leaves the crew's folder:
 * one with placeholders is checked when a run's inputs fill them, before any call.
 */
export function checkOutputFile(task: string, template: string | undefined, files: OutputFiles): void {
  if (template !== undefined && !template.includes('{')) outputPath(task, template, {}, files);
}

/**
 * `outcome` once its output is written to `path` (the raw text, or pretty JSON for a structured
 * output; folders created): a completed outcome becomes a failure (`output_file_failed`, never retried)
 * when the write fails. Writing the same output again (a resumed run) leaves the same file; the file
 * appears whole or not at all.
 */
export async function writtenOutcome(task: string, path: string, outcome: WorkOutcome): Promise<WorkOutcome> {
  if (!outcome.ok) return outcome;
  const value = outcome.output as TaskRunValue;
  const text = value.structured !== undefined ? `${JSON.stringify(value.structured, null, 2)}\n` : value.raw;
  // Written beside it and renamed: a process killed mid-write never leaves half a file at `path`.
  const partial = `${path}.${process.pid}.partial`;
  try {
    await mkdir(dirname(path), { recursive: true });
    await writeFile(partial, text, 'utf8');
    await rename(partial, path);
    return outcome;
  } catch (error) {
    await rm(partial, { force: true }).catch(() => undefined);
    const why = `the write failed: ${error instanceof Error ? error.message : String(error)}`;
    const failure = new OutputFileError(task, path, why, error);
    return { ok: false, error: toFailure(failure), finishedAt: outcome.finishedAt };
  }
}
