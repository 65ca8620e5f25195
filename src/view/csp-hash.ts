import { createHash } from 'node:crypto';

/** The Content-Security-Policy source that allows an inline script or style by its text: `'sha256-…'`. */
export function cspHash(text: string): string {
  return `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
}
