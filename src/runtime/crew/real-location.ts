import { lstatSync, readlinkSync, type Stats } from 'node:fs';
import { isAbsolute, join, parse, relative } from 'node:path';

/** Symbolic links followed in one path before giving up, as Linux does (`ELOOP`). */
const MAX_LINKS = 40;

/** The parts of a path between its separators, empty ones (a trailing or doubled separator) left out. */
export const segmentsOf = (path: string): string[] => path.split(/[\\/]/).filter((part) => part !== '');

/** Whether `path` is `base` or lies below it, comparing whole segments (`..notes` is a name, `..` is not). */
export function isInside(base: string, path: string): boolean {
  const rel = relative(base, path);
  return rel === '' || (!isAbsolute(rel) && segmentsOf(rel)[0] !== '..');
}

/** `path`'s entry, not following a link at its end; undefined when nothing is there. */
function entryAt(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

/**
 * Where the absolute `path` really is: every symbolic link on the way (the last part too, even one
 * pointing at nothing) followed as the system would, each `..` taken after the link before it. Parts
 * that do not exist yet are kept as they are, so the answer is where a file would be created. Throws
 * `ELOOP` past 40 links.
 */
export function realLocation(path: string): string {
  let real = parse(path).root;
  const pending = segmentsOf(path.slice(real.length));
  let links = 0;
  for (let part = pending.shift(); part !== undefined; part = pending.shift()) {
    if (part === '.') continue;
    if (part === '..') {
      real = join(real, '..');
      continue;
    }
    const next = join(real, part);
    if (entryAt(next)?.isSymbolicLink() !== true) {
      real = next;
      continue;
    }
    links += 1;
    if (links > MAX_LINKS)
      throw Object.assign(new Error(`too many symbolic links in ${path}`), { code: 'ELOOP' });
    const target = readlinkSync(next);
    if (isAbsolute(target)) real = parse(target).root;
    pending.unshift(...segmentsOf(isAbsolute(target) ? target.slice(real.length) : target));
  }
  return real;
}
