import { resolve } from 'node:path';
import type { ConversationExecutor } from '../../actors/conversation-job.js';
import type { ManagerFunctions } from '../../actors/manager.js';
import { DuplicateTaskError, InvalidOptionError, StoreRequiredError } from '../../errors.js';
import { checkStore, type Store } from '../../stores/store.js';
import type { ApprovalAnswer, CrewOutput, ModelPrice, ReviewAnswer } from '../../types.js';
import { RunOwner } from '../durable/run-owner.js';
import { type Budget, checkBudget, checkPrices } from '../engine/budget.js';
import { toClock } from '../engine/clock.js';
import type { PlainMachine } from '../engine/plain-machine.js';
import { optionalInteger } from '../engine/validate.js';
import type { LoopOptions, ProcessKind } from '../process.js';
import type { ProcessShape } from '../process-shape.js';
import { processes } from '../processes/registry.js';
import { readAnswers } from '../run/answers.js';
import type { ChildDefinition, ChildRunScope } from '../run/child-run.js';
import { hostTurn, RUN_START_OPERATIONS } from '../run/host-turn.js';
import type { StoreErrorPolicy } from '../run/run-commits.js';
import { Agent } from './agent.js';
import { runCrewAsChild } from './crew-child.js';
import { factsOf, taskAgents } from './crew-facts.js';
import { type KickoffForEachOptions, kickoffForEach } from './crew-for-each.js';
import { crewMermaid } from './crew-mermaid.js';
import type { CrewAnalysis, CrewShape } from './crew-picture.js';
import { claimCrewRun, replayRestore, resumeRestore, storedInputs } from './crew-resume.js';
import {
  type CrewRun,
  checkStoreErrorPolicy,
  crewLeaseMs,
  keepEvents,
  type RunOptions,
  startCrewRun,
} from './crew-run.js';
import { checkMemory, type MemoryOptions } from './memory.js';
import { checkStrictInputs } from './missing-inputs.js';
import {
  CREW_OPTIONS,
  CREW_REPLAY_OPTIONS,
  CREW_RESUME_OPTIONS,
  CREW_RUN_OPTIONS,
  checkOptionKeys,
} from './option-keys.js';
import { checkOutputFile, type OutputFiles } from './output-file.js';
import { planCrew } from './plan.js';
import { planRun, validatePlan } from './plan-cache.js';
import { type SummarizeOptions, type SummaryNode, summaryNode } from './summary.js';
import { Task } from './task.js';
import { keepAnswers, keptAnswers } from './waiting-tasks.js';

/** Options of {@link Crew.replay}: a run's options and the task to run again from. */
export interface ReplayOptions extends RunOptions {
  /** The first task to run again: a task of the crew, or its node id. */
  fromTask: Task | string;
}

/**
 * Options of {@link Crew.resume}: a run's options, who hears of the run once it started, and the
 * answers to what a paused run waits for.
 */
export interface CrewResumeOptions extends Omit<RunOptions, 'executionId'> {
  /** Called with the resumed run as soon as it was claimed and created: subscribe to its `events$` there. */
  onRun?: ((run: CrewRun) => void) | undefined;
  /**
   * Answers to tool calls waiting for approval, by `callId` (`out.pending`): `{ approve: true }` runs
   * the call; `{ approve: false, feedback }` gives the model the refusal with the feedback instead.
   */
  approvals?: Readonly<Record<string, ApprovalAnswer>> | undefined;
  /**
   * Answers to task outputs waiting for review, by node id: `{ approve: true }` completes the task
   * with it; `{ approve: false, feedback }` sends it back to the agent for another attempt.
   */
  reviews?: Readonly<Record<string, ReviewAnswer>> | undefined;
}

/** A hierarchical crew's manager: `{ allocate, synthesize }` functions, or an agent whose model decides. */
export type Manager = ManagerFunctions | Agent;

/** Options of a {@link Crew}. */
export interface CrewOptions {
  /** The tasks, in list order. */
  tasks: Task[];
  /** The agents; hierarchical crews allocate among them. @default the tasks' agents, in order */
  agents?: Agent[] | undefined;
  /** How the tasks run. @default 'sequential' */
  process?: ProcessKind | undefined;
  /** The manager of a hierarchical crew. */
  manager?: Manager | undefined;
  /** What the crew is for; the goal a hierarchical manager synthesizes towards. @default '' */
  goal?: string | undefined;
  /** Task runs in flight at most (parallel and graph). @default 8 */
  maxConcurrency?: number | undefined;
  /** The repetition of a loop crew (required for `process: 'loop'`). */
  loop?: LoopOptions | undefined;
  /** The crew's name, as its stored runs carry it. @default 'crew' */
  name?: string | undefined;
  /**
   * Where runs are kept: the run's id and inputs are claimed before anything runs, each task result is
   * written as it settles, before any task that reads it starts, and the run's document when it ends.
   * Each run holds a lease on its record while it runs (one owner per run).
   */
  store?: Store | undefined;
  /** How long a run's lease in its store lasts without renewal, in ms. @default 15000 */
  leaseMs?: number | undefined;
  /**
   * What a failed write does: `stop` the run before anything else starts (it rejects with
   * `store_unavailable`), or `continue`, reporting it as a `store.error` event and in
   * `metadata.storeErrors`. @default 'stop'
   */
  onStoreError?: StoreErrorPolicy | undefined;
  /** What each run may spend on model calls; a kickoff's `budget` replaces it. */
  budget?: Budget | undefined;
  /** Prices by model id (`'openai:gpt-4.1-mini'`): each call's cost when its model reports none. */
  prices?: Readonly<Record<string, ModelPrice>> | undefined;
  /**
   * After the tasks, one more node (`summary`) whose agent merges the completed outputs into
   * `out.summary`: a task run like the others, in `nodes` with its own usage. @default off
   */
  summarize?: SummarizeOptions | undefined;
  /**
   * Where the agents' conversations run: in this process by default, or on a queue of workers
   * (`createQueueExecutor` from `statecrew/queue`) that hold the agents and tools by name. The run —
   * its supervisor, lifecycles, time limits, schemas and guardrails — stays here.
   */
  executor?: ConversationExecutor | undefined;
  /**
   * An execution memory for each run: every completed task run kept in order, which agents granted
   * `createResultsTool()` look up — by task, the latest ones, or (with `embed`) by meaning. @default off
   */
  memory?: boolean | MemoryOptions | undefined;
  /**
   * How many hand-overs deep a delegation may go from a task's agent (agents with `allowDelegation`):
   * A → B is 1, A → B → C is 2; a deeper one is refused with an observation (`delegation_depth`).
   * 0 refuses every delegation. @default 2
   */
  maxDelegationDepth?: number | undefined;
  /**
   * Refuses a run whose inputs leave an `{identifier}` placeholder unfilled (`missing_input`, naming
   * each and where), before any model call; a kickoff's `strictInputs` wins. Off, such a run goes on
   * with the braces as written, a `run.warning` event and `metadata.missingInputs`. @default false
   */
  strictInputs?: boolean | undefined;
  /**
   * The folder a task's relative `outputFile` resolves against (`loadCrew` sets it to the folder of the
   * tasks YAML file). @default the working directory when the crew is made
   */
  baseDir?: string | undefined;
  /**
   * Lets a task's `outputFile` leave `baseDir` (through `..` or as an absolute path elsewhere); without
   * it such a path is refused (`output_file_failed`). @default false
   */
  allowOutsideFiles?: boolean | undefined;
}

/**
 * A team of agents and the tasks they work through. A crew is a definition: every `run` is a new,
 * independent run of its supervisor actor.
 *
 * @example
 * const crew = new Crew({ agents: [researcher, writer], tasks: [research, write] });
 * const out = await crew.kickoff({ inputs: { topic: 'AI' } });
 */
export class Crew implements ChildDefinition<CrewOutput> {
  readonly tasks: readonly Task[];
  readonly agents: readonly Agent[];
  readonly process: ProcessKind;
  readonly manager: Manager | undefined;
  readonly goal: string;
  readonly maxConcurrency: number;
  readonly loop: LoopOptions | undefined;
  readonly name: string;
  readonly store: Store | undefined;
  readonly budget: Budget | undefined;
  readonly prices: Readonly<Record<string, ModelPrice>> | undefined;
  /** The summary node, when the crew was made with `summarize`. */
  readonly summary: SummaryNode | undefined;
  readonly executor: ConversationExecutor | undefined;
  readonly memory: MemoryOptions | undefined;
  readonly leaseMs: number | undefined;
  readonly onStoreError: StoreErrorPolicy | undefined;
  /** How deep delegations may go; see {@link CrewOptions.maxDelegationDepth}. */
  readonly maxDelegationDepth: number;
  /** Whether a run with unfilled placeholders is refused; see {@link CrewOptions.strictInputs}. */
  readonly strictInputs: boolean;
  /** Where the tasks' output files go; see {@link CrewOptions.baseDir}. */
  readonly files: OutputFiles;
  /** Each task's node id, by position. */
  readonly #nodeIds: string[] = [];
  readonly #positions = new Map<Task, number>();

  constructor(options: CrewOptions) {
    checkOptionKeys('Crew', options, CREW_OPTIONS);
    if (!Array.isArray(options.tasks) || options.tasks.some((t) => !(t instanceof Task))) {
      throw new InvalidOptionError('Crew', 'tasks', 'an array of Task', options.tasks);
    }
    if (options.agents?.some((a) => !(a instanceof Agent))) {
      throw new InvalidOptionError('Crew', 'agents', 'an array of Agent', options.agents);
    }
    const process = options.process ?? 'sequential';
    if (!Object.hasOwn(processes, process)) {
      throw new InvalidOptionError('Crew', 'process', `one of ${Object.keys(processes).join(', ')}`, process);
    }
    this.tasks = [...options.tasks];
    this.agents = options.agents ? [...options.agents] : taskAgents(this.tasks);
    this.process = process;
    this.manager = options.manager;
    this.goal = options.goal ?? '';
    optionalInteger('Crew', 'maxConcurrency', options.maxConcurrency, 1);
    this.maxConcurrency = options.maxConcurrency ?? 8;
    this.loop = options.loop;
    if (options.name !== undefined && (typeof options.name !== 'string' || options.name === '')) {
      throw new InvalidOptionError('Crew', 'name', 'a non-empty string', options.name);
    }
    this.name = options.name ?? 'crew';
    checkStore('Crew', options.store);
    this.store = options.store;
    optionalInteger('Crew', 'leaseMs', options.leaseMs, 10);
    this.leaseMs = options.leaseMs;
    checkStoreErrorPolicy('Crew', options.onStoreError);
    this.onStoreError = options.onStoreError;
    checkBudget('Crew', options.budget);
    this.budget = options.budget;
    checkPrices('Crew', options.prices);
    this.prices = options.prices;
    this.#assignNodeIds();
    this.summary = summaryNode(options.summarize, this.goal, this.#nodeIds.values());
    if (options.executor !== undefined && typeof options.executor?.converse !== 'function') {
      throw new InvalidOptionError('Crew', 'executor', 'an executor with converse()', options.executor);
    }
    this.executor = options.executor;
    // An agent with `memory` (CrewAI's) reads the execution memory: the crew keeps one for it.
    const agentMemory = factsOf(this).agents.some((a) => a.memory);
    this.memory = checkMemory('Crew', options.memory) ?? (agentMemory ? {} : undefined);
    this.files = crewFiles(options);
    this.tasks.forEach((task, index) => {
      checkOutputFile(this.#nodeIds[index] as string, task.outputFile, this.files);
    });
    optionalInteger('Crew', 'maxDelegationDepth', options.maxDelegationDepth, 0);
    this.maxDelegationDepth = options.maxDelegationDepth ?? 2;
    checkStrictInputs('Crew', options.strictInputs);
    this.strictInputs = options.strictInputs ?? false;
    processes[process].checkDefinition(this);
    this.#planAhead();
  }

  /**
   * Finds the crew's facts, and plans and checks a crew whose texts take no inputs, now, as it is
   * made: its runs reuse that plan, and a kickoff holds its host for no walk over every task. What
   * the plan or its check finds wrong is left for the kickoff to throw, which plans again (a
   * definition may be mended before it runs).
   */
  #planAhead(): void {
    if (!factsOf(this).findAll().inputFree) return;
    try {
      validatePlan(processes[this.process], planRun(this, {}, true));
    } catch {
      // The kickoff throws it.
    }
  }

  /** The node id of `task` in this crew: its name, else `task-<position from 1>`. */
  nodeIdOf(task: Task): string | undefined {
    const position = this.#positions.get(task);
    return position === undefined ? undefined : this.#nodeIds[position];
  }

  /** The position of `task` in this crew's list, from 0. */
  positionOf(task: Task): number | undefined {
    return this.#positions.get(task);
  }

  /** Starts a run and returns its id, event stream, supervisor actor and result. */
  run(options: RunOptions = {}): CrewRun {
    checkOptionKeys(`Crew "${this.name}" kickoff`, options, CREW_RUN_OPTIONS);
    hostTurn.spend(RUN_START_OPERATIONS);
    return startCrewRun(this, processes[this.process], options);
  }

  /** Finds cycles and what they make unreachable, the critical path, what a failure blocks, and the paths. */
  analyze(): CrewAnalysis {
    return processes[this.process].analyze(this.#crewShape());
  }

  /** The crew's control flow as a plain XState machine (JSON-safe, opens in Stately). */
  toMachine(): PlainMachine {
    return processes[this.process].toMachine(this.#crewShape());
  }

  /** A Mermaid flowchart of the crew's tasks and their order or dependencies. */
  toMermaid(): string {
    const plan = planCrew(this, {});
    return crewMermaid(plan, processes[this.process].shape(plan));
  }

  /**
   * The shape of the crew's tasks under its process — or under the process named `kind` (a stored
   * run's; undefined when no process has that name): the nodes the process adds, the edges, the nodes
   * the run ends with, and how its runs go. The run view and the CLI draw from it.
   */
  processShape(): ProcessShape;
  processShape(kind: string): ProcessShape | undefined;
  processShape(kind: string = this.process): ProcessShape | undefined {
    if (!Object.hasOwn(processes, kind)) return undefined;
    return processes[kind as ProcessKind].shape(planCrew(this, {}));
  }

  #crewShape(): CrewShape {
    return { process: this.process, plan: planCrew(this, {}), maxIterations: this.loop?.maxIterations ?? 3 };
  }

  /**
   * Runs the crew to the end: `run(options).result`. It starts at once, unless this turn of the event
   * loop is already spent by other runs' work (say, fifty kickoffs in one call of the host): then it
   * starts in the first turn with room, so the host is never held for all of them at once.
   */
  async kickoff(options: RunOptions = {}): Promise<CrewOutput> {
    return hostTurn.whenRoom(() => this.run(options).result);
  }

  /**
   * Runs the crew as the child of another run's node (a flow step's `ctx.kickoff(crew)`): see
   * `runCrewAsChild`. A run that pauses for a human rejects with `ChildWaits`, and the node waits.
   */
  runAsChild(scope: ChildRunScope): Promise<CrewOutput> {
    return runCrewAsChild(this, scope);
  }

  /**
   * Runs the crew once for each entry of `inputsList` (CrewAI's `kickoff_for_each`), at most
   * `concurrency` (default 4) at once, each run with its own execution id, and resolves with every
   * run's settled result in input order, as `Promise.allSettled` gives them: a failed run's rejection
   * sits in its place and never stops the others. The other options are a kickoff's, shared by every
   * run; `onRun` hears of each run as it starts. Aborting `signal` aborts the runs in flight and
   * rejects those not started (`aborted`) without starting them.
   *
   * @example
   * const results = await crew.kickoffForEach([{ topic: 'AI' }, { topic: 'ML' }], { concurrency: 2 });
   * for (const r of results) if (r.status === 'fulfilled') console.log(r.value.raw);
   */
  async kickoffForEach(
    inputsList: readonly Record<string, unknown>[],
    options: KickoffForEachOptions = {},
  ): Promise<PromiseSettledResult<CrewOutput>[]> {
    return kickoffForEach(this, inputsList, options);
  }

  /**
   * Goes on with a stored run, under its execution id: only the tasks without a stored completed
   * result run (again), with the inputs the run was started with; the others complete with their
   * stored outputs, which later tasks read as context. `metadata.restored` lists them. Needs a store —
   * the option's, else the crew's (`store_required`); an id the store does not hold rejects with
   * `run_not_found`, a run another owner runs with `run_locked`. A paused run needs `approvals` or
   * `reviews` (`answer_required`): the task runs they answer go on, the others wait on.
   *
   * @example
   * const out = await crew.kickoff({ executionId: 'refund-42' }); // out.status === 'paused'
   * const [call] = out.pending ?? [];
   * if (call?.kind === 'approval') await crew.resume('refund-42', { approvals: { [call.callId]: { approve: true } } });
   */
  async resume(executionId: string, options: CrewResumeOptions = {}): Promise<CrewOutput> {
    checkOptionKeys(`Crew "${this.name}" resume`, options, CREW_RESUME_OPTIONS);
    const store = options.store ?? this.store;
    if (store === undefined) throw new StoreRequiredError(`Crew "${this.name}"`, 'resume a run');
    const { approvals, reviews, onRun, ...rest } = options;
    const answers = readAnswers(`Crew "${this.name}" resume`, approvals, reviews);
    const clock = toClock(options.clock);
    const owner = new RunOwner(store, executionId, crewLeaseMs(this, options), clock, keepEvents(options));
    const { inputs } = await claimCrewRun(this, owner, clock, answers);
    if (answers !== undefined) {
      try {
        await keepAnswers(owner, answers);
      } catch (error) {
        // Nothing ran: the run waits on, for the same answers once the store is back.
        await owner.releaseQuietly('paused');
        throw error;
      }
    }
    try {
      if (inputs !== undefined && options.inputs !== undefined) {
        throw new InvalidOptionError(
          `Crew "${this.name}" resume`,
          'inputs',
          'nothing: a resumed run keeps the inputs it was started with',
          options.inputs,
        );
      }
      // A run whose process died after it was answered goes on with the answers it was given.
      const given = answers ?? (await keptAnswers(store, executionId));
      const restore = await resumeRestore(this, executionId, store, given);
      const runOptions = { ...rest, executionId, store, inputs: inputs ?? options.inputs };
      const run = startCrewRun(this, processes[this.process], runOptions, { ...restore, owner });
      onRun?.(run);
      return await run.result;
    } catch (error) {
      await owner.releaseQuietly();
      throw error;
    }
  }

  /**
   * A new run that keeps the stored results of the tasks before `fromTask` (in list order; a loop:
   * in its first iteration) and runs the rest again, with the source run's inputs unless `inputs` are
   * given; `metadata.replayOf` is the source run's id.
   */
  async replay(executionId: string, options: ReplayOptions): Promise<CrewOutput> {
    checkOptionKeys(`Crew "${this.name}" replay`, options, CREW_REPLAY_OPTIONS);
    const { fromTask, ...runOptions } = options;
    const store = runOptions.store ?? this.store;
    const restore = await replayRestore(this, executionId, fromTask, store);
    const source = await store?.readRun(executionId);
    const inputs = runOptions.inputs ?? (source === undefined ? undefined : storedInputs(source));
    return startCrewRun(this, processes[this.process], { ...runOptions, inputs }, restore).result;
  }

  #assignNodeIds(): void {
    // Each node id's first position (from 1); the positions of those given to more than one task.
    const firstAt = new Map<string, number>();
    let repeated: Map<string, number[]> | undefined;
    for (let index = 0; index < this.tasks.length; index += 1) {
      const task = this.tasks[index] as Task;
      if (this.#positions.has(task)) {
        throw new InvalidOptionError('Crew', 'tasks', 'distinct Task objects', `task ${index + 1} repeated`);
      }
      const nodeId = task.name ?? `task-${index + 1}`;
      this.#nodeIds.push(nodeId);
      this.#positions.set(task, index);
      const first = firstAt.get(nodeId);
      if (first === undefined) firstAt.set(nodeId, index + 1);
      else {
        repeated ??= new Map();
        repeated.set(nodeId, [...(repeated.get(nodeId) ?? [first]), index + 1]);
      }
    }
    if (repeated === undefined) return;
    // The node id listed first among those repeated.
    for (const name of firstAt.keys()) {
      const at = repeated.get(name);
      if (at !== undefined) throw new DuplicateTaskError(name, at);
    }
  }
}

/** Where a crew's output files go: its `baseDir` (absolute) and whether they may leave it. */
function crewFiles(options: CrewOptions): OutputFiles {
  const { baseDir, allowOutsideFiles } = options;
  if (baseDir !== undefined && (typeof baseDir !== 'string' || baseDir === '')) {
    throw new InvalidOptionError('Crew', 'baseDir', 'a folder path', baseDir);
  }
  if (allowOutsideFiles !== undefined && typeof allowOutsideFiles !== 'boolean') {
    throw new InvalidOptionError('Crew', 'allowOutsideFiles', 'true or false', allowOutsideFiles);
  }
  return { baseDir: resolve(baseDir ?? '.'), allowOutsideFiles: allowOutsideFiles === true };
}
