import { existsSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import { InvalidOptionError, isStatecrewError } from '../../errors.js';
import type { QueueOptions } from '../../queue/connection.js';
import type { Crew } from '../../runtime/crew/crew.js';
import type { Flow } from '../../runtime/flow/flow.js';
import { listen } from '../../serve/listen.js';
import { createServer } from '../../serve/server.js';
import { untilStopSignal } from '../interrupt.js';
import { isCrew, isFlow, loadModule, loadTarget } from '../load-target.js';
import type { CliIo } from '../output.js';
import { openStore, takeParam } from '../store-option.js';
import { integerAtLeast, shutdownGraceOf } from './durations.js';

/** Options of `statecrew serve`. */
export interface ServeCommandOptions {
  port: string;
  host: string;
  store?: string | undefined;
  queue?: string | undefined;
  token?: string | undefined;
  insecureNoAuth?: boolean | undefined;
  cors?: string | undefined;
  runner?: boolean | undefined;
  /** `--request-timeout`: ms a client has to send a whole request. @default '30000' */
  requestTimeout?: string | undefined;
  shutdownGraceMs?: string | undefined;
  /** `--max-active-runs`: the most runs started here at once; more wait their turn. @default '16' */
  maxActiveRuns?: string | undefined;
}

/** `--port`: a whole number from 0 (any free port) to 65535. */
function portOf(text: string): number {
  const port = Number(text);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new InvalidOptionError('statecrew serve', '--port', 'a port number from 0 to 65535', text);
  }
  return port;
}

/** `--request-timeout`: a whole number of ms ≥ 1. */
function requestTimeoutOf(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const ms = Number(text);
  if (!Number.isInteger(ms) || ms < 1) {
    throw new InvalidOptionError('statecrew serve', '--request-timeout', 'a whole number of ms ≥ 1', text);
  }
  return ms;
}

/** `--max-active-runs`: a whole number of runs, at least 1. */
function maxActiveRunsOf(text: string | undefined): number | undefined {
  return text === undefined
    ? undefined
    : integerAtLeast('statecrew serve', '--max-active-runs', text, 1, 'runs');
}

/** The token: `--token`, else STATECREW_TOKEN; none only with `--insecure-no-auth` on 127.0.0.1. */
function tokenOf(options: ServeCommandOptions, env: CliIo['env']): string | undefined {
  const token = options.token ?? (env.STATECREW_TOKEN === '' ? undefined : env.STATECREW_TOKEN);
  if (token !== undefined) return token;
  if (options.insecureNoAuth !== true) {
    throw new InvalidOptionError('statecrew serve', '--token', 'a bearer token', undefined, {
      message:
        'statecrew serve: needs a bearer token: --token <token> or STATECREW_TOKEN (or --insecure-no-auth on 127.0.0.1)',
    });
  }
  if (options.host !== '127.0.0.1') {
    throw new InvalidOptionError(
      'statecrew serve',
      '--insecure-no-auth',
      'used with --host 127.0.0.1',
      options.host,
      {
        message: `statecrew serve: --insecure-no-auth serves 127.0.0.1 only, not --host ${options.host}: give a --token`,
      },
    );
  }
  return undefined;
}

/**
 * `--queue`: the Redis URL of the run queue; `?queue=<name>` names the queue, as `statecrew worker
 * --queue <name>` does (else `statecrew`, the worker's default too).
 */
function queueOf(spec: string | undefined): QueueOptions | undefined {
  if (spec === undefined) return undefined;
  const { rest, value } = takeParam(spec, 'queue');
  return value === undefined ? { connection: spec } : { connection: rest, queue: value };
}

/**
 * What `file` holds to serve: a module's exports, or the crew of a YAML crew directory (CrewAI's
 * project folder, its `config/`, or one of its two files), as `statecrew run` reads it — each of its
 * crews, by name, when its `crew.ts` defines several.
 */
async function servedOf(file: string): Promise<unknown[]> {
  const yaml =
    ['agents.yaml', 'tasks.yaml'].includes(basename(file)) ||
    (existsSync(file) && statSync(file).isDirectory());
  if (!yaml) return Object.values(await loadModule(file));
  try {
    const target = await loadTarget(file);
    return [target.kind === 'crew' ? target.crew : target.flow];
  } catch (error) {
    // A crew.ts defining several crews (`crews`, as several @CrewBase classes): serve each, by its name.
    if (!isStatecrewError(error, 'crew_not_picked')) throw error;
    const { crews } = error.details as { crews: string[] };
    const targets = await Promise.all(crews.map((name) => loadTarget(file, undefined, name)));
    return targets.map((target) => (target.kind === 'crew' ? target.crew : target.flow));
  }
}

/**
 * `statecrew serve [file]`: serves the crews and flows a module exports (or a YAML crew directory's
 * crew, named after its folder) over HTTP (`createServer`),
 * every run kept in `--store`, until Ctrl-C or SIGTERM, which stop it gracefully: no new connection,
 * the runs in flight get `--shutdown-grace-ms` to reach their next commit and are left `running` for
 * a runner to resume (a second signal: at once); then the store closes. Prints the URL and how to
 * authenticate. Resolves with the exit code.
 */
export async function serveCommand(
  file: string | undefined,
  options: ServeCommandOptions,
  io: CliIo,
): Promise<number> {
  const port = portOf(options.port);
  const requestTimeoutMs = requestTimeoutOf(options.requestTimeout);
  const shutdownGraceMs = shutdownGraceOf('statecrew serve', options.shutdownGraceMs);
  const maxActiveRuns = maxActiveRunsOf(options.maxActiveRuns);
  const token = tokenOf(options, io.env);
  const values = file === undefined ? [] : await servedOf(file);
  const crews = values.filter((value): value is Crew => isCrew(value));
  const flows = values.filter((value): value is Flow<object> => isFlow(value));
  const store = await openStore(options.store ?? 'sqlite');
  const server = createServer({
    crews,
    flows,
    store,
    shutdownGraceMs,
    ...(maxActiveRuns === undefined ? {} : { maxActiveRuns }),
    ...(token === undefined ? { insecureNoAuth: true } : { token }),
    ...(options.cors === undefined ? {} : { cors: options.cors }),
    ...(options.queue === undefined ? {} : { queue: queueOf(options.queue) }),
    ...(options.runner === false ? { runner: false as const } : {}),
  });
  const listening = await listen(server, { port, hostname: options.host, requestTimeoutMs });
  const names = [...crews, ...flows].map((d) => d.name).join(', ') || '(none)';
  io.stdout.write(`statecrew serve: listening on ${listening.url} (serving ${names})\n`);
  io.stdout.write(`statecrew serve: the studio is at ${listening.url}/\n`);
  io.stdout.write(
    token === undefined
      ? 'statecrew serve: no authentication (--insecure-no-auth): anyone on this machine can call it\n'
      : `statecrew serve: send "Authorization: Bearer <token>" (the token of --token or STATECREW_TOKEN); routes: ${listening.url}/openapi.json\n`,
  );
  await untilStopSignal(() => void server.close());
  const closing = listening.close();
  io.stdout.write(
    `statecrew serve: stopping: the runs in flight get up to ${shutdownGraceMs} ms to reach their next commit, then are left for a runner to resume\n`,
  );
  await closing;
  await store.close();
  return 0;
}
