import type { Speaker } from '../../actors/conversation.js';
import { UnknownCommandTargetError } from '../../errors.js';
import { MIN_LOCK_DURATION_MS, MIN_STALLED_INTERVAL_MS } from '../../queue/worker-tuning.js';
import type { Crew } from '../../runtime/crew/crew.js';
import type { Flow } from '../../runtime/flow/flow.js';
import type { Tool, ToolSource } from '../../types.js';
import { isCrew, isFlow, loadModule } from '../load-target.js';
import type { CliIo } from '../output.js';
import { openStore } from '../store-option.js';
import { integerAtLeast } from './durations.js';

const COMMAND = 'statecrew worker';

/** Options of `statecrew worker`. */
export interface WorkerCommandOptions {
  connection: string;
  queue: string;
  concurrency: string;
  /** `--lock-duration`, in ms. */
  lockDuration: string;
  /** `--stalled-interval`, in ms. */
  stalledInterval: string;
  name?: string | undefined;
  store?: string | undefined;
}

/**
 * `statecrew worker <file>`: a worker on a BullMQ queue for every crew and flow the module exports
 * (their names take whole runs, their agents and tools the crews' conversations; `agents` and `tools`
 * exports add more), until Ctrl-C or SIGTERM, which let the jobs in flight finish. Resolves with the
 * exit code.
 */
export async function workerCommand(file: string, options: WorkerCommandOptions, io: CliIo): Promise<number> {
  const tuning = {
    concurrency: integerAtLeast(COMMAND, '--concurrency', options.concurrency, 1),
    lockDurationMs: integerAtLeast(
      COMMAND,
      '--lock-duration',
      options.lockDuration,
      MIN_LOCK_DURATION_MS,
      'ms',
    ),
    stalledIntervalMs: integerAtLeast(
      COMMAND,
      '--stalled-interval',
      options.stalledInterval,
      MIN_STALLED_INTERVAL_MS,
      'ms',
    ),
  };
  const module = await loadModule(file);
  const { definitions, agents, tools, mcps } = registryOf(module);
  const { createWorker } = await import('../../queue/index.js').catch(() => {
    throw new UnknownCommandTargetError(COMMAND, 'needs bullmq and ioredis: npm install bullmq ioredis');
  });
  const store = options.store === undefined ? undefined : await openStore(options.store);
  const worker = createWorker({
    connection: options.connection,
    queue: options.queue,
    ...tuning,
    agents: [...agents.values()],
    tools: [...tools.values()],
    mcps: Object.fromEntries(mcps),
    definitions,
    ...(options.name === undefined ? {} : { name: options.name }),
    ...(store === undefined ? {} : { store }),
  });
  await worker.ready;
  io.stdout.write(
    `worker ${worker.name} on queue ${options.queue}: agents ${[...agents.keys()].join(', ') || '(none)'}; runs of ${Object.keys(definitions).join(', ') || '(none)'}; ready\n`,
  );
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  io.stdout.write(`worker ${worker.name} stopping: letting its jobs in flight finish\n`);
  await worker.close();
  await store?.close();
  return 0;
}

/**
 * What a module's worker holds: its crews and flows by name, and the agents, tools and MCP servers
 * (by name) of the crews, with the module's `agents` and `tools` exports.
 */
function registryOf(module: Record<string, unknown>) {
  const definitions: Record<string, Crew | Flow<object>> = {};
  const agents = new Map<string, Speaker>();
  const tools = new Map<string, Tool>();
  /** MCP servers granted to the crews' tasks and agents, by name: reached through the worker's connections. */
  const mcps = new Map<string, ToolSource>();
  // A whole server wins over a subset of it (a job asks for the subset it was granted).
  const addSource = (source: ToolSource) => {
    if (!mcps.has(source.name) || source.subset === undefined) mcps.set(source.name, source);
  };
  const addAgent = (agent: Speaker) => {
    agents.set(agent.role, agent);
    for (const tool of agent.tools) tools.set(tool.name, tool);
    for (const source of agent.toolSources ?? []) addSource(source);
  };
  for (const value of Object.values(module)) {
    if (isFlow(value)) definitions[value.name] = value;
    else if (isCrew(value)) {
      definitions[value.name] = value;
      for (const agent of value.agents) addAgent(agent);
      for (const task of value.tasks) {
        if (task.agent !== undefined) addAgent(task.agent);
        for (const tool of task.tools) tools.set(tool.name, tool);
        for (const source of task.toolSources) addSource(source);
      }
    }
  }
  for (const agent of (module.agents as Speaker[] | undefined) ?? []) addAgent(agent);
  for (const tool of (module.tools as Tool[] | undefined) ?? []) tools.set(tool.name, tool);
  return { definitions, agents, tools, mcps };
}
