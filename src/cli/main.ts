#!/usr/bin/env node
/**
 * The `statecrew` command: `run`, `resume`, `show`, `runs`, `plot` and `paths` (see `statecrew --help`).
 */
import { survivingClosedPipe } from './closed-pipe.js';
import { runCli } from './program.js';

process.exitCode = await runCli(process.argv.slice(2), {
  stdout: survivingClosedPipe(process.stdout),
  stderr: survivingClosedPipe(process.stderr),
  env: process.env,
});
