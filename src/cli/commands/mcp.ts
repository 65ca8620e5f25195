import { resolve } from 'node:path';
import { InvalidOptionError, UnknownCommandTargetError } from '../../errors.js';
import { createMcpServer, type McpServeOptions, type ServedRun } from '../../mcp/serve.js';
import { type Serving, serveHttp, serveStdio } from '../../mcp/serve-transports.js';
import type { Crew } from '../../runtime/crew/crew.js';
import type { Flow } from '../../runtime/flow/flow.js';
import type { Store } from '../../stores/store.js';
import { watchInterrupts } from '../interrupt.js';
import { isCrew, isFlow, loadModule } from '../load-target.js';
import { type CliIo, errorLine } from '../output.js';
import { writeSource } from '../run-source.js';
import { openStore, storeHint } from '../store-option.js';

/** Options of `statecrew mcp`. */
export interface McpCommandOptions {
  export?: string | undefined;
  http?: string | undefined;
  store?: string | undefined;
}

/** A served definition and the module export it came from (for `statecrew resume`). */
interface Exported {
  definition: Crew | Flow<object>;
  exportName: string;
}

/** The crews and flows of a module, keyed by export name (`default` by the definition's own name). */
function exportedOf(
  module: Record<string, unknown>,
  file: string,
  only: string | undefined,
): Map<string, Exported> {
  const found = new Map<string, Exported>();
  for (const [exportName, value] of Object.entries(module)) {
    if (only !== undefined && exportName !== only) continue;
    if (!isCrew(value) && !isFlow(value)) continue;
    found.set(exportName === 'default' ? value.name : exportName, { definition: value, exportName });
  }
  if (found.size > 0) return found;
  if (only !== undefined && module[only] === undefined)
    throw new UnknownCommandTargetError(file, `has no export "${only}"`);
  const which =
    only === undefined ? 'exports no crew or flow' : `export "${only}" is neither a Crew nor a flow`;
  throw new UnknownCommandTargetError(file, which);
}

/** `--http`'s port: a whole number from 0 (any free port) to 65535. */
function portOf(text: string): number {
  const port = Number(text);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new InvalidOptionError('statecrew', '--http', 'a port number from 0 to 65535', text);
  }
  return port;
}

/** Keeps protocol alone on stdout: the served module's `console.log` goes to stderr. */
function logsToStderr(): void {
  const toStderr = (...args: unknown[]) => console.error(...args);
  console.log = toStderr;
  console.info = toStderr;
  console.debug = toStderr;
}

/**
 * `statecrew mcp <file>`: serves every crew and flow the module exports (or `--export`) as an MCP
 * tool, named after its export (`default`: the definition's own name), over stdio — nothing but the
 * protocol on stdout — or over streamable HTTP at `http://127.0.0.1:<port>/mcp` with `--http`. With
 * `--store`, every call is a durable run that `statecrew resume <id>` (or `statecrew signal <id>
 * <event>`) goes on with; without it, a call that needs a store is `store_required`, naming
 * `--store`. Over HTTP each client gets a session, so cancelling a call aborts its run. Each run's
 * end is a line on stderr. Stops on SIGINT,
 * SIGTERM or (stdio) the end of stdin, aborting the runs in flight. Resolves with the exit code.
 */
export async function mcpCommand(file: string, options: McpCommandOptions, io: CliIo): Promise<number> {
  const port = options.http === undefined ? undefined : portOf(options.http);
  if (port === undefined) logsToStderr();
  const exported = exportedOf(await loadModule(file), file, options.export);
  const store = options.store === undefined ? undefined : await openStore(options.store);
  const interrupts = watchInterrupts();
  const inFlight = new Set<Promise<void>>();
  const serveOptions: McpServeOptions = {
    crews: keyed(exported, isCrew),
    flows: keyed(exported, isFlow),
    store,
    storeHint: storeHint('statecrew mcp'),
    name: 'statecrew',
    signal: interrupts.signal,
    onRun: (run) => {
      const ended = run.settled.then(() => reportEnd(run, exported, io));
      inFlight.add(ended);
      void ended.then(() => inFlight.delete(ended));
      return noteSource(run, exported, file, io);
    },
  };
  // Refuses a bad definition set (two keys, one tool name) before listening.
  const first = createMcpServer(serveOptions);
  const tools = [...exported.keys()].join(', ');
  let serving: Serving;
  if (port === undefined) {
    serving = await serveStdio(first);
    io.stderr.write(`statecrew mcp: serving ${tools} over stdio\n`);
  } else {
    const http = await serveHttp(() => createMcpServer(serveOptions), port);
    serving = http;
    io.stderr.write(`statecrew mcp: listening on ${http.url} (tools: ${tools})\n`);
  }
  const stopped = new Promise<void>((resolve) =>
    interrupts.signal.addEventListener('abort', () => resolve()),
  );
  await Promise.race([serving.ended, stopped]);
  io.stderr.write('statecrew mcp: stopping\n');
  interrupts.dispose();
  await serving.close();
  await Promise.all(inFlight);
  await store?.close();
  return 0;
}

/** The definitions of one kind, by key. */
function keyed<T extends Crew | Flow<object>>(
  exported: Map<string, Exported>,
  is: (value: unknown) => value is T,
): Record<string, T> {
  const out: Record<string, T> = {};
  for (const [key, { definition }] of exported) if (is(definition)) out[key] = definition;
  return out;
}

/**
 * Says on stderr how a run a call started ended, as its store keeps it: `statecrew mcp: run <id> of
 * <tool> completed` (`paused`, `failed`, `aborted`, …; `ended` without a store).
 */
async function reportEnd(run: ServedRun, exported: Map<string, Exported>, io: CliIo): Promise<void> {
  const store: Store | undefined = run.store ?? exported.get(run.key)?.definition.store;
  const head = await store?.readRun(run.id).catch(() => undefined);
  io.stderr.write(`statecrew mcp: run ${run.id} of ${run.tool} ${head?.status ?? 'ended'}\n`);
}

/** Notes beside a stored run where its definition is, so `statecrew resume <id>` finds it. */
async function noteSource(
  run: ServedRun,
  exported: Map<string, Exported>,
  file: string,
  io: CliIo,
): Promise<void> {
  const entry = exported.get(run.key);
  const store: Store | undefined = run.store ?? entry?.definition.store;
  if (entry === undefined || store === undefined) return;
  await writeSource(store, run.id, {
    kind: run.kind,
    name: run.name,
    file: resolve(file),
    export: entry.exportName,
  }).catch((error: unknown) => {
    io.stderr.write(errorLine(error, false));
  });
}
