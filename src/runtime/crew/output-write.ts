import { constants } from 'node:fs';
import { lstat, mkdir, open, realpath, rename, rm } from 'node:fs/promises';
import { basename, dirname, join, relative } from 'node:path';
import { isInside, realLocation, segmentsOf } from './real-location.js';

/** Where a task's output file goes: the absolute path, and the folder it must stay in, if any. */
export interface OutputTarget {
  /** The file (absolute, inputs filled in). */
  readonly path: string;
  /** The crew's `baseDir` when the file must stay inside it; undefined when `allowOutsideFiles`. */
  readonly within: string | undefined;
  /** Whether its missing folders are made (else a missing folder fails the write). @default true */
  readonly createFolders?: boolean;
}

/**
 * Why the absolute `path` lies outside `baseDir`, judged by where both really are (every symbolic
 * link followed, the file's own too); undefined when it lies inside.
 */
export function escapeOf(baseDir: string, path: string): string | undefined {
  let realBase: string;
  let real: string;
  try {
    realBase = realLocation(baseDir);
    real = realLocation(path);
  } catch (error) {
    return `its folders cannot be resolved: ${error instanceof Error ? error.message : String(error)}`;
  }
  if (isInside(realBase, real)) return undefined;
  const where = real === path ? `${path},` : `${path}, which is ${real} through a symbolic link,`;
  return `it resolves to ${where} outside the crew's folder ${baseDir}`;
}

/**
 * Creates each missing folder from `realBase` down to `folder` (a real location below it) one at a
 * time, and checks that each one on the way is a folder, not a symbolic link swapped in since.
 */
async function madeFolders(realBase: string, folder: string): Promise<void> {
  let at = realBase;
  for (const part of segmentsOf(relative(realBase, folder))) {
    at = join(at, part);
    await mkdir(at).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw error;
    });
    if (!(await lstat(at)).isDirectory()) throw new Error(`${at} is not a folder`);
  }
}

/**
 * Writes `text` to `path` whole: beside it first (created afresh, never through a link), then renamed
 * over it, so a process killed mid-write never leaves half a file there.
 */
export async function writeWhole(path: string, text: string): Promise<void> {
  const partial = `${path}.${process.pid}.partial`;
  await rm(partial, { force: true });
  try {
    const file = await open(partial, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL);
    try {
      await file.writeFile(text, 'utf8');
    } finally {
      await file.close();
    }
    await rename(partial, path);
  } catch (error) {
    await rm(partial, { force: true }).catch(() => undefined);
    throw error;
  }
}

/** Refuses a write into a folder that is not there, for a task that makes no folders. */
async function requireFolder(folder: string): Promise<void> {
  const found = await lstat(folder).catch(() => undefined);
  if (found === undefined) {
    throw new Error(`the folder ${folder} does not exist and the task's createDirectory is false`);
  }
}

/**
 * Writes `text` to `target.path`, its folders created (unless `target.createFolders` is false). A target that must stay within its folder is
 * checked again where it really is at the time of the write (a symbolic link may have appeared since
 * the run was planned), and its folders are made one by one inside the real folder, so the file is
 * created through no link.
 */
export async function writeOutputFile(target: OutputTarget, text: string): Promise<void> {
  if (target.createFolders === false) await requireFolder(dirname(target.path));
  if (target.within === undefined) {
    await mkdir(dirname(target.path), { recursive: true });
    return writeWhole(target.path, text);
  }
  await mkdir(target.within, { recursive: true });
  const realBase = await realpath(target.within);
  const outside = escapeOf(realBase, target.path);
  if (outside !== undefined) throw new Error(outside);
  const folder = realLocation(dirname(target.path));
  await madeFolders(realBase, folder);
  return writeWhole(join(folder, basename(target.path)), text);
}
