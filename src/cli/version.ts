import { readFileSync } from 'node:fs';

/**
 * The package's version, read from its own `package.json` when the command starts: two folders up
 * from this file, which holds for `src/cli/` and for the built `dist/cli/` alike. `unknown` when that
 * file cannot be read or names no version.
 */
export function packageVersion(manifest: URL = new URL('../../package.json', import.meta.url)): string {
  try {
    const data = JSON.parse(readFileSync(manifest, 'utf8')) as { version?: unknown };
    return typeof data.version === 'string' ? data.version : 'unknown';
  } catch {
    return 'unknown';
  }
}
