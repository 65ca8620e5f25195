import { fileURLToPath } from 'node:url';

/** True when the module at `moduleUrl` is the script being run (not imported by a test). */
export function isMain(moduleUrl: string): boolean {
  return process.argv[1] !== undefined && fileURLToPath(moduleUrl) === process.argv[1];
}
