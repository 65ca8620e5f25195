import { resolve } from 'node:path';
import type { ConversationExecutor } from '../../actors/conversation-job.js';
import { InvalidOptionError, StoreRequiredError } from '../../errors.js';
import { parseOptions } from '../../options/parse.js';
import { checkStore, type Store } from '../../stores/store.js';
import type { CrewOutput, IgnoredKey, ModelPrice, RunHistory } from '../../types.js';
import { checkRunId } from '../durable/claim.js';
import { RunOwner } from '../durable/run-owner.js';
import type { Budget } from '../engine/budget.js';
import { toClock } from '../engine/clock.js';
import type { PlainMachine } from '../engine/plain-machine.js';
import type { ContextDefault, LoopOptions } from '../process.js';
import type { ProcessShape } from '../process-shape.js';
import type { ProcessKind } from '../processes/registry.js';
import { processes } from '../processes/registry.js';
import { readAnswers } from '../run/answers.js';
import type { ChildDefinition, ChildItemScope, ChildRunScope } from '../run/child-run.js';
import { hostTurn, RUN_START_OPERATIONS } from '../run/host-turn.js';
import type { StoreErrorPolicy } from '../run/run-commits.js';
import type { Agent } from './agent.js';
import { crewPausesFor, runCrewAsChild, runCrewAsItem } from './crew-child.js';
import { factsOf, taskAgents } from './crew-facts.js';
import { kickoffForEach } from './crew-for-each.js';
import { forkRestore } from './crew-fork.js';
import {
  type CrewForkOptions,
  type CrewHistoryOptions,
  crewForkOptionsSchema,
  crewHistoryOptionsSchema,
} from './crew-fork-options.js';
import { crewHistory } from './crew-history.js';
import { type CrewIndex, indexTasks, keepIndex } from './crew-index.js';
import { crewMermaid } from './crew-mermaid.js';
import { type CrewOptions, type CrewSettings, crewOptionsSchema, type Manager } from './crew-options.js';
import type { CrewAnalysis, CrewShape } from './crew-picture.js';
import { claimCrewRun, replayRestore, resumeRestore, storedInputs } from './crew-resume.js';
import { crewLeaseMs, keepEvents, startCrewRun } from './crew-run.js';
import { checkMemory, type MemoryOptions } from './memory.js';
import { checkOutputFile, type OutputFiles } from './output-file.js';
import { planCrew } from './plan.js';
import { planRun, validatePlan } from './plan-cache.js';
import {
  type CrewResumeOptions,
  type CrewRun,
  crewResumeOptionsSchema,
  type KickoffForEachOptions,
  type ReplayOptions,
  type RunOptions,
  replayOptionsSchema,
  runOptionsSchema,
} from './run-options.js';
import { type SummaryNode, summaryNode } from './summary.js';
import type { Task } from './task.js';
import { keepAnswers, keptAnswers } from './waiting-tasks.js';

export type { CrewOptions, Manager } from './crew-options.js';

/** Refuses `state` given to a crew's fork (`invalid_option`): a crew has no state; its outputs are edited. */
function refuseState(where: string, options: unknown): void {
  if (typeof options === 'object' && options !== null && 'state' in options) {
    const expected = "absent: a crew has no state (edit a kept task's output with `outputs`)";
    throw new InvalidOptionError(where, 'state', expected, (options as { state: unknown }).state);
  }
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
  /** Its options as checked, with their defaults: what an option without a field of its own is read from. */
  readonly settings: CrewSettings;
  readonly tasks: readonly Task[];
  readonly agents: readonly Agent[];
  readonly process: ProcessKind;
  /** What a task without a `context` list reads; see {@link CrewOptions.context}. */
  readonly context: ContextDefault;
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
  /** Keys of the crew's YAML that `loadCrew` ignored: each run warns of them (see `CrewOptions`). */
  readonly ignoredKeys: readonly IgnoredKey[];
  /** Where the tasks' output files go; see {@link CrewOptions.baseDir}. */
  readonly files: OutputFiles;
  /** Each task's node id and position, and each node id's position. */
  readonly #index: CrewIndex;

  constructor(options: CrewOptions) {
    const settings = parseOptions(crewOptionsSchema, 'Crew', options);
    this.settings = settings;
    this.tasks = [...settings.tasks];
    this.agents = settings.agents ? [...settings.agents] : taskAgents(this.tasks);
    this.process = settings.process;
    this.context = settings.context;
    this.manager = settings.manager;
    this.goal = settings.goal;
    this.maxConcurrency = settings.maxConcurrency;
    this.loop = settings.loop;
    this.name = settings.name;
    this.store = settings.store;
    this.leaseMs = settings.leaseMs;
    this.onStoreError = settings.onStoreError;
    this.budget = settings.budget;
    this.prices = settings.prices;
    this.#index = indexTasks(this.tasks);
    keepIndex(this, this.#index);
    this.summary = summaryNode(settings.summarize, this.goal, this.#index.nodeIds);
    this.executor = settings.executor;
    // An agent with `memory` (CrewAI's) reads the execution memory: the crew keeps one for it.
    const agentMemory = factsOf(this).agents.some((a) => a.memory);
    this.memory = checkMemory('Crew', settings.memory) ?? (agentMemory ? {} : undefined);
    this.files = { baseDir: resolve(settings.baseDir ?? '.'), allowOutsideFiles: settings.allowOutsideFiles };
    this.tasks.forEach((task, index) => {
      checkOutputFile(this.#index.nodeIds[index] as string, task.outputFile, this.files);
    });
    this.maxDelegationDepth = settings.maxDelegationDepth;
    this.strictInputs = settings.strictInputs;
    this.ignoredKeys = settings.ignoredKeys;
    processes[this.process].checkDefinition(this);
    this.#planAhead();
  }

  /**
   * Finds the crew's facts, and plans and checks the crew now, as it is made, throwing what its
   * process refuses (as CrewAI's Crew does when it is built): a context naming a later task, a task
   * without an agent, an asynchronous task reading the one it runs beside. A crew whose texts take no
   * inputs keeps that plan for its runs, so a kickoff holds its host for no walk over every task; one
   * whose texts do is checked without its output file paths, which only its inputs decide. A kickoff
   * checks its own plan again (a task's `context` may change after construction).
   */
  #planAhead(): void {
    const process = processes[this.process];
    if (!factsOf(this).findAll().inputFree) {
      (process.checkPlan ?? process.validate).call(process, planCrew(this, {}, { outputFiles: false }));
      return;
    }
    const plan = planRun(this, {}, true);
    if (process.checkPlan === undefined) {
      validatePlan(process, plan);
      return;
    }
    process.checkPlan(plan);
    try {
      validatePlan(process, plan);
    } catch {
      // What only a kickoff refuses (a graph's cycle), the kickoff throws.
    }
  }

  /** The node id of `task` in this crew: its name, else `task-<position from 1>`. */
  nodeIdOf(task: Task): string | undefined {
    const position = this.#index.positions.get(task);
    return position === undefined ? undefined : this.#index.nodeIds[position];
  }

  /** The position of `task` in this crew's list, from 0. */
  positionOf(task: Task): number | undefined {
    return this.#index.positions.get(task);
  }

  /** Starts a run and returns its id, event stream, supervisor actor and result. */
  run(options: RunOptions = {}): CrewRun {
    const settings = parseOptions(runOptionsSchema, `Crew "${this.name}" kickoff`, options);
    hostTurn.spend(RUN_START_OPERATIONS);
    return startCrewRun(this, processes[this.process], settings);
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

  /** Runs the crew as an item of a flow's map step, under the item's id: see `runCrewAsItem`. */
  runAsItem(scope: ChildItemScope): Promise<CrewOutput> {
    return runCrewAsItem(this, scope);
  }

  /** Why runs of the crew could pause for a human, in words; undefined when none could. */
  pausesFor(): string | undefined {
    return crewPausesFor(this);
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
  async resume(executionId: string, given: CrewResumeOptions = {}): Promise<CrewOutput> {
    const options = parseOptions(crewResumeOptionsSchema, `Crew "${this.name}" resume`, given);
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
    const { fromTask, ...runOptions } = parseOptions(
      replayOptionsSchema,
      `Crew "${this.name}" replay`,
      options,
    );
    const store = runOptions.store ?? this.store;
    const restore = await replayRestore(this, executionId, fromTask, store);
    const source = await store?.readRun(executionId);
    const inputs = runOptions.inputs ?? (source === undefined ? undefined : storedInputs(source));
    return startCrewRun(this, processes[this.process], { ...runOptions, inputs }, restore).result;
  }

  /**
   * The committed history of run `id` of this crew, read from its store (the option's, else the
   * crew's; `store_required` without one): its task runs in commit order, across resumes, one page
   * (`after`, `limit`). `run_not_found` for an unknown run, or a run of another crew or of a flow.
   *
   * @example
   * const { checkpoints } = await crew.history('refund-42');
   * for (const c of checkpoints) console.log(c.seq, c.nodeId, c.status, c.output);
   */
  async history(id: string, options: CrewHistoryOptions = {}): Promise<RunHistory> {
    const where = `Crew "${this.name}" history`;
    checkRunId(where, 'id', id);
    const { store: given, ...page } = parseOptions(crewHistoryOptionsSchema, where, options);
    const store = given ?? this.store;
    if (store === undefined) throw new StoreRequiredError(`Crew "${this.name}"`, "read a run's history");
    checkStore(where, store);
    return crewHistory(this.name, store, id, page);
  }

  /**
   * A new run from checkpoint `at` of stored run `id`: the completed task results committed up to it
   * (in commit order) are kept — no model call for them, `outputs` edited in — and every other task
   * runs, reading the kept (and edited) outputs as context. The source's inputs unless `inputs` are
   * given; the new run's id is `options.id`, else a fresh one (`run_exists` when taken). Its head keeps
   * `data.forkedFrom`; `metadata.forkedFrom` and `metadata.restored` (the kept node ids) tell it.
   *
   * @example
   * const out = await crew.fork('refund-42', { at: 'draft', outputs: { draft: 'A better draft' } });
   * out.metadata.forkedFrom; // { runId: 'refund-42', checkpoint: 'draft' }
   */
  async fork(id: string, options: CrewForkOptions): Promise<CrewOutput> {
    const where = `Crew "${this.name}" fork`;
    checkRunId(where, 'the source run id', id);
    refuseState(where, options);
    const parsed = parseOptions(crewForkOptionsSchema, where, options);
    const { at, outputs, id: newId, onRun, ...runOptions } = parsed;
    const store = runOptions.store ?? this.store;
    if (store === undefined) throw new StoreRequiredError(`Crew "${this.name}"`, 'fork a run');
    checkStore(where, store);
    if (newId !== undefined) checkRunId(where, 'id', newId);
    const source = await forkRestore(this, id, { at, outputs }, store);
    const inputs = runOptions.inputs ?? source.inputs;
    const settings = { ...runOptions, store, inputs, ...(newId === undefined ? {} : { executionId: newId }) };
    const run = startCrewRun(this, processes[this.process], settings, source.restore);
    onRun?.(run);
    return run.result;
  }
}
