/**
 * Builds the package once before the tests: the CLI tests run the built `statecrew` binary in child
 * processes, and their fixtures import the built package by name, as a user's project would.
 */
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';

export default function setup(): void {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
}
