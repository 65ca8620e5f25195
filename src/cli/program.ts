import { Command, CommanderError, Option } from 'commander';
import { DEFAULT_LOCK_DURATION_MS, DEFAULT_STALLED_INTERVAL_MS } from '../queue/worker-tuning.js';
import { forkCommand } from './commands/fork.js';
import { historyCommand } from './commands/history.js';
import { pathsCommand } from './commands/paths.js';
import { resumeCommand } from './commands/resume.js';
import { runCommand } from './commands/run.js';
import { LISTED_RUN_STATUSES, runsCommand } from './commands/runs.js';
import { showCommand } from './commands/show.js';
import { signalCommand } from './commands/signal.js';
import { type CliIo, errorLine, oneLine } from './output.js';
import { packageVersion } from './version.js';

/** Where a command's action leaves its exit code. */
type Finish = (exit: number) => void;

const collect = (value: string, previous: string[]) => [...previous, value];

const storeOption = () =>
  new Option(
    '--store <store>',
    'where runs are kept: sqlite[:path], memory, postgres://… or redis://…',
  ).default(undefined, 'the definition’s own store, else .statecrew/statecrew.db');

/**
 * Runs the `statecrew` command line with `argv` (without `node` and the script) and resolves with
 * the exit code. Every error is one line on stderr naming its code (a stack trace only with
 * `--verbose`); nothing throws out of it.
 *
 * @example
 * process.exitCode = await runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env });
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  let code = 0;
  const program = new Command('statecrew')
    .description('Run, resume, inspect and prove statecrew crews and flows.')
    .version(packageVersion(), '-V, --version', 'print the version')
    .option('--verbose', 'print stack traces with errors')
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
      outputError: () => {},
    });
  const finish: Finish = (exit) => {
    code = exit;
  };

  addRunCommands(program, io, finish);
  addStoredRunCommands(program, io, finish);
  addDefinitionCommands(program, io, finish);
  addEvalCommands(program, io, finish);
  addServiceCommands(program, io, finish);

  try {
    await program.parseAsync([...argv], { from: 'user' });
    return code;
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end here too, with exit code 0.
      if (error.exitCode === 0) return 0;
      // Without a command the help went to stderr already: nothing more to say.
      if (error.code !== 'commander.help') io.stderr.write(commanderErrorLine(error));
      return 2;
    }
    io.stderr.write(errorLine(error, argv.includes('--verbose')));
    return 1;
  }
}

/** A usage error of commander as one line: `statecrew: <message> (<code>)`, the code in snake case. */
function commanderErrorLine(error: CommanderError): string {
  const code = error.code.replace(/^commander\./, '').replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
  return `statecrew: ${oneLine(error.message.replace(/^error: /, ''))} (${code})\n`;
}

/** `run`, `resume` and `signal`: the commands that run something. */
function addRunCommands(program: Command, io: CliIo, finish: Finish): void {
  program
    .command('run')
    .description(
      'run a crew or flow exported by a .ts/.js module, or a directory with agents.yaml and tasks.yaml',
    )
    .argument('<file>', 'the module or YAML crew directory')
    .option('--export <name>', 'the module export to run', undefined)
    .option('--crew <name>', 'which crew of a YAML folder whose crew.ts exports several (crews)')
    .option('--input <key=value>', 'an input (repeatable; a JSON value, else text)', collect, [])
    .option('--inputs <file.json>', 'inputs from a JSON object file')
    .option(
      '--allow-missing-inputs',
      'run a crew whose {placeholders} no input fills, with a warning (refused by default)',
    )
    .option(
      '--thread <name>',
      'run on this thread: a flow starts from the state its last run left (a busy thread is refused)',
    )
    .addOption(storeOption())
    .option('--json', 'print the result as JSON (progress goes to stderr)')
    .option(
      '--shutdown-grace-ms <ms>',
      'on SIGTERM, how long the steps in flight get to reach their next commit before the run is left for a runner to resume',
      '10000',
    )
    .action(async (file: string, options) => finish(await runCommand(file, options, io)));

  addResumeCommand(program, io, finish);
  addForkCommand(program, io, finish);

  program
    .command('signal')
    .description(
      'send an outside event to a paused flow run: the steps waiting for it complete, the run goes on',
    )
    .argument('<id>', 'the run id')
    .argument('<event>', 'the event, as the wait steps name it')
    .option('--payload <json>', 'the event’s payload, as JSON (the listeners of the wait step get it)')
    .option('--file <file>', 'the definition, when the run was not started by statecrew run')
    .option('--export <name>', 'the module export of the definition')
    .option('--crew <name>', 'which crew of a YAML folder whose crew.ts exports several (crews)')
    .addOption(storeOption())
    .option('--json', 'print the result as JSON')
    .action(async (id: string, event: string, options) =>
      finish(await signalCommand(id, event, options, io)),
    );
}

/** `resume`: goes on with a stored run, answering what a paused one waits for. */
function addResumeCommand(program: Command, io: CliIo, finish: Finish): void {
  const resume = program
    .command('resume')
    .description(
      'go on with a stored run: a paused flow or crew with its answer, an aborted, crashed or failed run',
    )
    .argument('<id>', 'the run id')
    .option('--route <route>', 'the answer to a paused human step')
    .option('--approve <callId>', 'run a tool call that waits for approval (repeatable)', collect, [])
    .option(
      '--deny <callId>',
      'refuse a tool call that waits for approval, with --feedback (repeatable)',
      collect,
      [],
    )
    .option(
      '--review <nodeId...>',
      'answer a task output that waits for review: --review <nodeId> approve, or --review <nodeId> --feedback <text> to send it back (repeatable)',
    )
    .option('--feedback <text>', 'feedback with the answer: a route’s, a denial’s, a review sent back')
    .option('--step <step>', 'which human step (or step’s crew) the answer is for, when several wait');
  goOnOptions(resume).action(async (id: string, options) => finish(await resumeCommand(id, options, io)));
}

/** `fork`: a new run from a stored run's checkpoint, with edits. */
function addForkCommand(program: Command, io: CliIo, finish: Finish): void {
  const fork = program
    .command('fork')
    .description(
      'fork a stored run at a checkpoint: keep what came before it (no model call), edit, and run on from there',
    )
    .argument('<id>', 'the run id')
    .requiredOption(
      '--at <checkpoint>',
      'the checkpoint: a node id as statecrew history lists it, or its seq',
    )
    .option(
      '--state <json>',
      'a flow’s state fields to change, as a JSON object merged over the checkpoint’s state',
    )
    .option('--output <node=text>', 'an earlier node’s output to use instead (repeatable)', collect, [])
    .option('--input <key=value>', 'an input of the fork (repeatable; a JSON value, else text)', collect, [])
    .option('--id <id>', 'the fork’s run id (default: a new UUID)');
  goOnOptions(fork).action(async (id: string, options) => finish(await forkCommand(id, options, io)));
}

/**
 * The options of a command that runs a stored run on here (`resume`, `fork`): where its definition
 * is, the store, the output, and how long a SIGTERM waits for the steps in flight.
 */
function goOnOptions(command: Command): Command {
  return command
    .option('--file <file>', 'the definition, when the run was not started by statecrew run')
    .option('--export <name>', 'the module export of the definition')
    .option('--crew <name>', 'which crew of a YAML folder whose crew.ts exports several (crews)')
    .addOption(storeOption())
    .option('--json', 'print the result as JSON')
    .option(
      '--shutdown-grace-ms <ms>',
      'on SIGTERM, how long the steps in flight get to reach their next commit before the run is left for a runner to resume',
      '10000',
    );
}

/** `show`, `history` and `runs`: the commands that read the stored runs. */
function addStoredRunCommands(program: Command, io: CliIo, finish: Finish): void {
  program
    .command('show')
    .description('show a stored run')
    .argument('<id>', 'the run id')
    .option('--markdown', 'as a Markdown report')
    .option('--json', 'as JSON')
    .addOption(storeOption())
    .action(async (id: string, options) => finish(await showCommand(id, options, io)));

  program
    .command('history')
    .description('list the committed checkpoints of a stored run, in commit order (needs no definition)')
    .argument('<id>', 'the run id')
    .option('--after <seq>', 'only the checkpoints after this seq (where the previous page ended)')
    .option('--limit <n>', 'at most this many checkpoints (default: every one)')
    .option('--json', 'the run history as JSON')
    .addOption(storeOption())
    .action(async (id: string, options) => finish(await historyCommand(id, options, io)));

  program
    .command('runs')
    .description('list the stored runs, most recent first')
    .option('--status <status>', `only runs with this status: ${LISTED_RUN_STATUSES.join(', ')}`)
    .option('--thread <name>', 'only the runs of this thread, oldest first')
    .option('--limit <n>', 'at most this many', '50')
    .option(
      '--prune <duration>',
      'delete the settled runs (or those of --status) last changed longer ago than this (30m, 12h, 7d)',
    )
    .option(
      '--keep-history',
      'with --prune: keep the runs and their history (checkpoints, results) and delete only their kept events',
    )
    .option('--json', 'as JSON')
    .addOption(storeOption())
    .action(async (options) => finish(await runsCommand(options, io)));
}

/** `plot` and `paths`: the commands that look at a definition (or a stored run). */
function addDefinitionCommands(program: Command, io: CliIo, finish: Finish): void {
  program
    .command('plot')
    .description('write a self-contained HTML view of a definition (a file) or of a stored run (an id)')
    .argument('<file-or-id>', 'a module or YAML crew directory, or a run id')
    .option('-o, --output <file>', 'where to write the view')
    .option('--export <name>', 'the module export')
    .option('--crew <name>', 'which crew of a YAML folder whose crew.ts exports several (crews)')
    .addOption(storeOption())
    .action(async (target: string, options) => {
      // The view and its layout library load only for this command.
      const { plotCommand } = await import('./commands/plot.js');
      finish(await plotCommand(target, options, io));
    });

  program
    .command('paths')
    .description(
      'list every path and whether termination is proven (exit 1 on an unreachable step, unused route or dead end)',
    )
    .argument('<file>', 'a module or YAML crew directory')
    .option('--export <name>', 'the module export')
    .option('--crew <name>', 'which crew of a YAML folder whose crew.ts exports several (crews)')
    .option('--json', 'the analysis as JSON')
    .action(async (file: string, options) => finish(await pathsCommand(file, options, io)));
}

/** `test` and `eval`: the commands that score a crew's or flow's runs. */
function addEvalCommands(program: Command, io: CliIo, finish: Finish): void {
  program
    .command('test')
    .description(
      'CrewAI’s crewai test: run a crew n times, a judge scoring each task from 1 to 10, and print the table of scores',
    )
    .argument(
      '<file>',
      'a CrewAI project folder (config/agents.yaml, config/tasks.yaml), or a module exporting a crew',
    )
    .option('-n, --n-iterations <n>', 'how many times the crew runs (default: 3)')
    .addOption(new Option('--n_iterations <n>').hideHelp())
    .option('--judge <model>', 'the judge, as a provider string (default: openai/gpt-4o-mini)')
    .option('-m, --model <model>', 'CrewAI’s name of --judge')
    .option('--export <name>', 'the module export to test')
    .option('--crew <name>', 'which crew of a YAML folder whose crew.ts exports several (crews)')
    .option('--input <key=value>', 'an input (repeatable; a JSON value, else text)', collect, [])
    .option('--inputs <file.json>', 'inputs from a JSON object file')
    .addOption(storeOption())
    .option('--json', 'print the evaluation report as JSON instead of the table')
    .action(async (file: string, options) => {
      const { testCommand } = await import('./commands/test.js');
      finish(await testCommand(file, options, io));
    });

  program
    .command('eval')
    .description(
      'score a crew or flow on a dataset with the scorers its module exports; exit 1 under --fail-under or against --baseline',
    )
    .argument('<file>', 'a module exporting the crew or flow and its scorers, or a YAML crew folder')
    .requiredOption(
      '--dataset <file>',
      'the cases: a .jsonl, .json, .yaml or .yml file of { inputs, expected? }',
    )
    .option('--export <name>', 'the module export to evaluate')
    .option('--crew <name>', 'which crew of a YAML folder whose crew.ts exports several (crews)')
    .option('-n, --iterations <n>', 'how many times each case runs', '1')
    .option('--concurrency <n>', 'how many runs at once', '4')
    .option('--judge <model>', 'add a judge: CrewAI’s 1–10 per task for a crew, a generic rubric for a flow')
    .option('--baseline <report.json>', 'a report to compare with: exit 1 when a scorer or a case fell')
    .option('--tolerance <x>', 'how far a scorer’s mean may fall against the baseline', '0')
    .option('--fail-under <x>', 'exit 1 when a scorer’s mean is under this (0 to 1)')
    .option('--out <report.json>', 'where to write the report (default: .statecrew/evals/<report id>.json)')
    .addOption(storeOption())
    .option('--json', 'print the report as JSON')
    .action(async (file: string, options) => {
      const { evalCommand } = await import('./commands/eval.js');
      finish(await evalCommand(file, options, io));
    });
}

/** `runner`, `worker`, `serve` and `mcp`: the commands that serve until stopped. */
function addServiceCommands(program: Command, io: CliIo, finish: Finish): void {
  addRunnerCommand(program, io, finish);

  program
    .command('worker')
    .description(
      'take jobs from a BullMQ queue: conversations of the crews a module exports, and whole runs of its crews and flows',
    )
    .argument('<file>', 'a module exporting crews and flows (and optionally agents and tools)')
    .option('--connection <url>', 'the Redis server', 'redis://127.0.0.1:6379')
    .option('--queue <name>', 'the queue', 'statecrew')
    .option('--concurrency <n>', 'jobs held at once', '8')
    .option(
      '--lock-duration <ms>',
      'how long a job’s lock lasts unrenewed (renewed while its call runs): a killed worker’s jobs go to the others after it',
      String(DEFAULT_LOCK_DURATION_MS),
    )
    .option(
      '--stalled-interval <ms>',
      'how often jobs whose worker died are looked for',
      String(DEFAULT_STALLED_INTERVAL_MS),
    )
    .option('--name <name>', 'the worker name recorded on the nodes it runs')
    .option('--store <store>', 'where whole runs are kept (else each definition’s own store)')
    .option(
      '--shutdown-grace-ms <ms>',
      'on SIGTERM or Ctrl-C, how long the runs in flight get to reach their next commit before they are left for a runner to resume (a second signal: at once)',
      '10000',
    )
    .action(async (file: string, options) => {
      const { workerCommand } = await import('./commands/worker.js');
      finish(await workerCommand(file, options, io));
    });

  addServeCommand(program, io, finish);

  program
    .command('mcp')
    .description(
      'serve the crews and flows a module exports as MCP tools, over stdio (or streamable HTTP with --http)',
    )
    .argument('<file>', 'a module exporting crews and flows')
    .option('--export <name>', 'serve only this export')
    .option(
      '--http <port>',
      'serve streamable HTTP at http://127.0.0.1:<port>/mcp instead of stdio (0: a free port)',
    )
    .option(
      '--store <store>',
      'keep every call as a durable run: sqlite[:path], memory, postgres://… or redis://…',
    )
    .action(async (file: string, options) => {
      // The MCP SDK loads only for this command.
      const { mcpCommand } = await import('./commands/mcp.js');
      finish(await mcpCommand(file, options, io));
    });
}

/** `runner`: resumes the stored runs whose process died. */
function addRunnerCommand(program: Command, io: CliIo, finish: Finish): void {
  program
    .command('runner')
    .description(
      'resume the stored runs of the crews and flows a module exports whose process died, until stopped',
    )
    .argument('<file>', 'a module exporting crews and flows')
    .addOption(storeOption())
    .option('--poll-ms <ms>', 'how often to look for stuck runs', '5000')
    .option(
      '--shutdown-grace-ms <ms>',
      'on SIGTERM or Ctrl-C, how long the runs in flight get to reach their next commit before they are left for a runner to resume (a second signal: at once)',
      '10000',
    )
    .action(async (file: string, options) => {
      const { runnerCommand } = await import('./commands/runner.js');
      finish(await runnerCommand(file, options, io));
    });
}

/** `serve`: crews and flows over HTTP. */
function addServeCommand(program: Command, io: CliIo, finish: Finish): void {
  program
    .command('serve')
    .description(
      'serve the crews and flows a module exports over HTTP: start, list, read, resume and abort runs',
    )
    .argument('[file]', 'a module exporting crews and flows, or a YAML crew directory')
    .option('--port <port>', 'the port (0: a free one, printed)', '8787')
    .option('--host <host>', 'the address to listen on', '127.0.0.1')
    .option(
      '--store <store>',
      'where runs are kept: sqlite[:path], memory, postgres://… or redis://…',
      'sqlite',
    )
    .option(
      '--queue <url>',
      'submit runs to the BullMQ run queue on this Redis (statecrew worker runs them); ?queue=<name> names the queue',
    )
    .option('--token <token>', 'the bearer token requests must carry (else STATECREW_TOKEN)')
    .option('--insecure-no-auth', 'serve without a token (127.0.0.1 only)')
    .option('--cors <origin>', 'the browser origin allowed to call it')
    .option('--no-runner', 'do not resume runs whose process died, nor fire deadlines and schedules')
    .option(
      '--request-timeout <ms>',
      'how long a client has to send a whole request (else 408); responses such as event streams are not cut',
      '30000',
    )
    .option(
      '--max-active-runs <runs>',
      'the most runs started here at once; further POST /runs wait, in order, until one settles (GET /admission counts them)',
      '16',
    )
    .option(
      '--shutdown-grace-ms <ms>',
      'on SIGTERM or Ctrl-C, how long the runs in flight get to reach their next commit before they are left for a runner to resume (a second signal: at once)',
      '10000',
    )
    .action(async (file: string | undefined, options) => {
      // Hono loads only for this command.
      const { serveCommand } = await import('./commands/serve.js');
      finish(await serveCommand(file, options, io));
    });
}
