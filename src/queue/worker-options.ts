import type { z } from 'zod';
import type { AgentRegistry } from '../actors/conversation-job.js';
import { unchecked } from '../options/option.js';
import { DEFAULT_SHUTDOWN_GRACE_MS } from '../runtime/durable/graceful-stop.js';
import type { Store } from '../stores/store.js';
import type { RunDefinitions } from './definitions.js';
import { queueOptionsSchema } from './queue-options.js';
import {
  DEFAULT_LOCK_DURATION_MS,
  DEFAULT_STALLED_INTERVAL_MS,
  MIN_LOCK_DURATION_MS,
  MIN_STALLED_INTERVAL_MS,
  wholeAtLeast,
} from './worker-tuning.js';

/** The options of `createWorker(...)`: a queue part's, its registry, its tuning and its whole runs. */
export const workerOptionsSchema = queueOptionsSchema.extend({
  /**
   * The agents whose conversations this worker holds, as a list (by role) or a record by name.
   * @default none: a worker of whole runs only (`definitions`)
   */
  agents: unchecked<AgentRegistry['agents']>().optional(),
  /** The tools the jobs may name, as a list (by name) or a record by name. @default none */
  tools: unchecked<AgentRegistry['tools']>().optional(),
  /** MCP servers (`mcpServer(...)` of `statecrew/mcp`) the jobs may name, by their names. @default none */
  mcps: unchecked<AgentRegistry['mcps']>().optional(),
  /** Jobs held at once (a whole number ≥ 1). @default 8 */
  concurrency: wholeAtLeast(1).default(8),
  /** How this worker is named in the nodes it ran (`nodes[].worker`). @default `<host>:<pid>` */
  name: unchecked<string>().optional(),
  /**
   * How long a job's lock lasts without renewal, in ms (≥ 1000). The worker renews the locks of its
   * jobs in flight every quarter to half of it, however long a call takes; a worker that died loses its
   * jobs to the others once their locks ran out, and one whose event loop is blocked for more than half
   * of it may lose them too (they then run twice). @default 5000
   */
  lockDurationMs: wholeAtLeast(MIN_LOCK_DURATION_MS, ' of ms').default(DEFAULT_LOCK_DURATION_MS),
  /**
   * How often, in ms (≥ 100), the jobs whose locks ran out (their worker died) are looked for and put
   * back in the queue for another worker. @default 2000
   */
  stalledIntervalMs: wholeAtLeast(MIN_STALLED_INTERVAL_MS, ' of ms').default(DEFAULT_STALLED_INTERVAL_MS),
  /**
   * Crews and flows by name: the worker also runs whole runs of them (`submitRun`), each kept in
   * `store` (a run whose worker died is resumed from it by the worker that takes it over).
   */
  definitions: unchecked<RunDefinitions>().optional(),
  /** Where the whole runs are kept. @default the definitions' own stores */
  store: unchecked<Store>().optional(),
  /**
   * Whether the worker also resumes the stored runs of its definitions whose process died, like
   * `createRunner` does, every `pollMs`. @default true when it holds definitions
   */
  recover: unchecked<boolean | { pollMs?: number }>().optional(),
  /**
   * How long `close()` lets the whole runs in flight (and the runs its runners resumed) reach their
   * next commit, in ms, before it abandons their steps and gives their leases up; each run's job goes
   * back to the queue, for a worker to resume it. @default 10000
   */
  shutdownGraceMs: wholeAtLeast(0, ' of ms').default(DEFAULT_SHUTDOWN_GRACE_MS),
});

/** Options of {@link createWorker}. */
export interface WorkerOptions extends z.input<typeof workerOptionsSchema> {}

/** A worker's options as checked, with their defaults. */
export type WorkerSettings = z.output<typeof workerOptionsSchema>;
