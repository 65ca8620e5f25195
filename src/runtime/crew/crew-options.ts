import { z } from 'zod';
import type { ConversationExecutor } from '../../actors/conversation-job.js';
import type { ManagerFunctions } from '../../actors/manager.js';
import { flag, integer, oneOf } from '../../options/fields.js';
import { checkedBy, option, unchecked } from '../../options/option.js';
import { storeOption } from '../../stores/store.js';
import type { IgnoredKey, ModelPrice } from '../../types.js';
import { type Budget, checkBudget, checkPrices } from '../engine/budget.js';
import type { LoopOptions } from '../process.js';
import type { ProcessKind } from '../processes/registry.js';
import { processes } from '../processes/registry.js';
import { Agent } from './agent.js';
import { checkMemory, type MemoryOptions } from './memory.js';
import type { SummarizeOptions } from './summary.js';
import { Task } from './task.js';

/** A hierarchical crew's manager: `{ allocate, synthesize }` functions, or an agent whose model decides. */
export type Manager = ManagerFunctions | Agent;

const PROCESSES = Object.keys(processes) as ProcessKind[];
const STORE_ERROR_POLICIES = ['stop', 'continue'] as const;
const CONTEXT_DEFAULTS = ['previous', 'all'] as const;

/** The options of `new Crew(...)`: each option's type, check, default and docs, once. */
export const crewOptionsSchema = z.strictObject({
  /** The tasks, in list order. */
  tasks: option<Task[]>('an array of Task', (t) => Array.isArray(t) && t.every((one) => one instanceof Task)),
  /** The agents; hierarchical crews allocate among them. @default the tasks' agents, in order */
  agents: option<Agent[]>(
    'an array of Agent',
    (a) => Array.isArray(a) && a.every((one) => one instanceof Agent),
  ).optional(),
  /** How the tasks run. @default 'sequential' */
  process: oneOf(PROCESSES, `one of ${PROCESSES.join(', ')}`).default('sequential'),
  /**
   * What a task without a `context` list reads in a sequential or loop crew: `'previous'`, the
   * previous task's output; `'all'`, every earlier task's output in list order, joined with CrewAI's
   * divider (`'\n\n----------\n\n'`), as CrewAI gives it (`loadCrew` defaults to `'all'`). Hierarchical
   * tasks read every earlier output whatever it says; parallel and graph tasks read only their
   * `context` lists. @default 'previous'
   */
  context: oneOf(CONTEXT_DEFAULTS, "'previous' or 'all'").default('previous'),
  /** The manager of a hierarchical crew; a manager agent is not one of the crew's `agents` (`invalid_option`). */
  manager: unchecked<Manager>().optional(),
  /** What the crew is for; the goal a hierarchical manager synthesizes towards. @default '' */
  goal: unchecked<string>().default(''),
  /** Task runs in flight at most (parallel and graph). @default 8 */
  maxConcurrency: integer(1).default(8),
  /** The repetition of a loop crew (required for `process: 'loop'`). */
  loop: unchecked<LoopOptions>().optional(),
  /** The crew's name, as its stored runs carry it. @default 'crew' */
  name: option<string>('a non-empty string', (n) => typeof n === 'string' && n !== '').default('crew'),
  /**
   * Where runs are kept: the run's id and inputs are claimed before anything runs, each task result is
   * written as it settles, before any task that reads it starts, and the run's document when it ends.
   * Each run holds a lease on its record while it runs (one owner per run).
   */
  store: storeOption().optional(),
  /** How long a run's lease in its store lasts without renewal, in ms. @default 15000 */
  leaseMs: integer(10).optional(),
  /**
   * What a failed write does: `stop` the run before anything else starts (it rejects with
   * `store_unavailable`), or `continue`, reporting it as a `store.error` event and in
   * `metadata.storeErrors`. @default 'stop'
   */
  onStoreError: oneOf(STORE_ERROR_POLICIES, "'stop' or 'continue'").optional(),
  /** What each run may spend on model calls; a kickoff's `budget` replaces it. */
  budget: checkedBy<Budget>('{ maxTokens?, maxCostUsd? }', checkBudget).optional(),
  /** Prices by model id (`'openai:gpt-4.1-mini'`): each call's cost when its model reports none. */
  prices: checkedBy<Readonly<Record<string, ModelPrice>>>(
    "{ 'provider:model': { inputPerMTok, outputPerMTok } }",
    checkPrices,
  ).optional(),
  /**
   * After the tasks, one more node (`summary`) whose agent merges the completed outputs into
   * `out.summary`: a task run like the others, in `nodes` with its own usage. @default off
   */
  summarize: unchecked<SummarizeOptions>().optional(),
  /**
   * Where the agents' conversations run: in this process by default, or on a queue of workers
   * (`createQueueExecutor` from `statecrew/queue`) that hold the agents and tools by name. The run —
   * its supervisor, lifecycles, time limits, schemas and guardrails — stays here.
   */
  executor: option<ConversationExecutor>(
    'an executor with converse()',
    (e) => typeof (e as Partial<ConversationExecutor> | null)?.converse === 'function',
  ).optional(),
  /**
   * An execution memory for each run: every completed task run kept in order, which agents granted
   * `createResultsTool()` look up — by task, the latest ones, or (with `embed`) by meaning. @default off
   */
  memory: checkedBy<boolean | MemoryOptions>('true, false or { embed?, topK? }', checkMemory).optional(),
  /**
   * How many hand-overs deep a delegation may go from a task's agent (agents with `allowDelegation`):
   * A → B is 1, A → B → C is 2; a deeper one is refused with an observation (`delegation_depth`).
   * 0 refuses every delegation. @default 2
   */
  maxDelegationDepth: integer(0).default(2),
  /**
   * Refuses a run whose inputs leave an `{identifier}` placeholder unfilled (`missing_input`, naming
   * each and where), before any model call; a kickoff's `strictInputs` wins. Off, such a run goes on
   * with the braces as written, a `run.warning` event and `metadata.missingInputs`. @default false
   */
  strictInputs: flag('a boolean').default(false),
  /**
   * The folder a task's relative `outputFile` resolves against (`loadCrew` sets it to the folder of the
   * tasks YAML file). @default the working directory when the crew is made
   */
  baseDir: option<string>('a folder path', (d) => typeof d === 'string' && d !== '').optional(),
  /**
   * Lets a task's `outputFile` leave `baseDir` (through `..`, as an absolute path elsewhere, or through
   * a symbolic link); without it such a path is refused (`output_file_failed`). @default false
   */
  allowOutsideFiles: flag().default(false),
  /**
   * Keys of the crew's YAML files that were read and ignored (`loadCrew` sets it): each run warns of
   * them once (`run.warning`, code `ignored_key`) and lists them in `metadata.ignoredKeys`. @default []
   */
  ignoredKeys: option<readonly IgnoredKey[]>('a list of ignored keys', Array.isArray).default([]),
});

/** Options of a {@link Crew}. */
export interface CrewOptions extends z.input<typeof crewOptionsSchema> {}

/** A crew's options as checked, with their defaults. */
export type CrewSettings = z.output<typeof crewOptionsSchema>;
