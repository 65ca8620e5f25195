#!/usr/bin/env node
/**
 * The `statecrew` command: `run`, `resume`, `show`, `runs`, `plot` and `paths` (see `statecrew --help`).
 */
import { runCli } from './program.js';

process.exitCode = await runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
});
