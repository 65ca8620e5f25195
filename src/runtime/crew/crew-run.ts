import { ToolSessions } from '../../actors/tool-sessions.js';
import { InvalidInputsError, InvalidOptionError } from '../../errors.js';
import { ProviderModel } from '../../models/providers.js';
import { checkStore } from '../../stores/store.js';
import type { CrewOutput, MissingInput } from '../../types.js';
import { checkRunId } from '../durable/claim.js';
import { encodeAt } from '../durable/codec.js';
import { keepsEventsOption } from '../durable/events-option.js';
import { DEFAULT_LEASE_MS, RunOwner } from '../durable/run-owner.js';
import { type CallGate, callGate, checkBudget, checkPrices } from '../engine/budget.js';
import { type Clock, toClock } from '../engine/clock.js';
import { RunRecorder } from '../engine/recorder.js';
import { optionalInteger } from '../engine/validate.js';
import type { CrewProcess } from '../process.js';
import { checkInputs } from '../run/inputs.js';
import { type DriveParts, Run, type RunKeeping, type RunPlacement } from '../run/run.js';
import type { StoreErrorPolicy } from '../run/run-commits.js';
import { factsOf } from './crew-facts.js';
import { checkCanPause } from './crew-pause.js';
import { CrewRecords } from './crew-records.js';
import { CrewRunEnd } from './crew-run-end.js';
import { createCrewScope } from './crew-scope.js';
import { type StoredTaskResult, storedTaskResult } from './crew-store.js';
import { type CrewThread, crewThread } from './crew-thread.js';
import { checkShowableInputs } from './interpolate.js';
import { memoryEntry, RunMemory } from './memory.js';
import { checkMissingInputs, checkStrictInputs } from './missing-inputs.js';
import type { CrewPlan } from './plan.js';
import { planRun, validatePlan } from './plan-cache.js';
import type { CrewRun, RunOptions } from './run-options.js';
import type { RunnableCrew, RunRestore } from './runnable-crew.js';
import { SUMMARY_NODE } from './summary.js';
import { createTaskRunner, promptOf, type TaskRunnerOptions } from './task-runner.js';

const NOTHING_RESTORED: ReadonlyMap<string, StoredTaskResult> = new Map();
const NOTHING_REACHED: ReadonlySet<string> = new Set();

/**
 * Starts one run of `crew` with `process`. Bad inputs and configuration errors throw here, before any
 * call. The supervisor starts on the next microtask, so subscribers attached to `events$` right away
 * see every event.
 */
export function startCrewRun(
  crew: RunnableCrew,
  process: CrewProcess,
  options: RunOptions,
  restore?: RunRestore,
): CrewRun {
  const { inputs, plan, missingInputs } = checkKickoff(crew, process, options);
  const id = options.executionId ?? globalThis.crypto.randomUUID();
  const clock = toClock(options.clock);
  const recorder = new RunRecorder();
  const thread = restore === undefined ? threadOf(crew, options, id, clock) : undefined;
  const keeping = crewKeeping(crew, options, restore, { id, clock, inputs, thread });
  const run = new Run({ id, clock, reduce: (event, at) => recorder.apply(event, at), keeping });
  const hub = run.events;
  const records = run.commits && new CrewRecords(run.commits, crew.name);
  const restored = restore?.results ?? NOTHING_RESTORED;
  const gate = callGate(options.budget ?? crew.budget, options.prices ?? crew.prices, recorder.usage);
  const runnerOptions = taskRunnerOptions(crew, process.kind, options, {
    records,
    restore,
    recorder,
    gate,
    plan,
    thread,
  });
  const toolSessions = new ToolSessions();
  runnerOptions.toolSessions = toolSessions;
  const runner = createTaskRunner(hub, recorder, clock, runnerOptions);
  const reached = restore?.reached ?? NOTHING_REACHED;
  const scope = { plan, runner, recorder, hub, crew, restored, reached, gate, waiting: restore?.waiting };
  const supervisor = process.supervisor(createCrewScope(scope));
  const { logic, input, advisors = [] } = supervisor;
  const actor = run.supervise(logic, input, actorId(options, id, process.kind), options, runner);
  for (const advisor of advisors) runner.addAdvisor(advisor, actor);
  const end = new CrewRunEnd({
    id,
    crew,
    process: process.kind,
    restore,
    scope,
    clock,
    runnerOptions,
    records,
    supervisor,
    summaryActor: { id: actorId(options, id, 'summary'), ...placementOf(options) },
    startedAt: clock.now(),
    missingInputs,
    thread: thread?.thread,
  });
  const parts = keptFirst(end.driveParts(actor, runner, options.signal), run, records, restore);
  const done = closedAfter(run.drive<CrewOutput>(parts), toolSessions);
  return { id, events$: hub.events$, actor, result: done };
}

/**
 * A new run's drive that keeps results of an earlier one (a replay, a fork): they are its first
 * commit, right after its claim, in the earlier run's order, before any task runs.
 */
function keptFirst(
  parts: DriveParts<CrewOutput>,
  run: Run,
  records: CrewRecords | undefined,
  restore: RunRestore | undefined,
): DriveParts<CrewOutput> {
  const kept = restore?.kept;
  if (records === undefined || kept === undefined || kept.length === 0) return parts;
  return {
    ...parts,
    afterClaim: () => {
      records.keep(kept);
      return run.write();
    },
  };
}

/**
 * The run's result once its tool sources are closed too (completed, failed, aborted or paused: no MCP
 * server's process outlives the run). Marked handled, as `runToEnd`'s is.
 */
function closedAfter<T>(result: Promise<T>, sessions: ToolSessions): Promise<T> {
  const closed = result.then(
    (value) => sessions.close().then(() => value),
    (error: unknown) =>
      sessions.close().then(() => {
        throw error;
      }),
  );
  closed.catch(() => {});
  return closed;
}

/** Refuses bad inputs and configuration before any call; the run's inputs and plan. */
function checkKickoff(
  crew: RunnableCrew,
  process: CrewProcess,
  options: RunOptions,
): { inputs: Record<string, unknown>; plan: CrewPlan; missingInputs: MissingInput[] } {
  const inputs = checkInputs('Crew kickoff', options.inputs, options.maxInputBytes);
  checkShowableInputs(`Crew "${crew.name}" kickoff`, inputs);
  checkStrictInputs('Crew kickoff', options.strictInputs);
  checkBudget('Crew kickoff', options.budget);
  checkPrices('Crew kickoff', options.prices);
  checkStore('Crew kickoff', options.store);
  const facts = factsOf(crew);
  const plan = planRun(crew, inputs, facts.inputFree);
  validatePlan(process, plan);
  checkCanPause(crew.name, facts.pauseReason, (options.store ?? crew.store) !== undefined);
  checkProviders(facts.agents, crew.manager, crew.summary?.agent);
  if (options.executionId !== undefined) checkRunId('Crew kickoff', 'executionId', options.executionId);
  const missingInputs = checkMissingInputs(crew, inputs, options.strictInputs ?? crew.strictInputs);
  return { inputs, plan, missingInputs };
}

/**
 * The id of a run's `kind` of actor (its supervisor, its summary stage): the kind alone under a parent
 * (a child's id becomes the type of the done event its parent gets: keep it free of the run id).
 */
function actorId(options: RunOptions, id: string, kind: string): string {
  return options.parent === undefined ? `${kind}:${id}` : kind;
}

/** Where a run's actors sit: a child of `parent`, else their own system (with `inspect`). */
function placementOf(options: RunOptions): RunPlacement {
  if (options.parent !== undefined) return { parent: options.parent };
  return options.inspect === undefined ? {} : { inspect: options.inspect };
}

/** Where a run with a store (the option's, else the crew's) is kept: it claims, renews and writes it. */
function crewKeeping(
  crew: RunnableCrew,
  options: RunOptions,
  restore: RunRestore | undefined,
  { id, clock, inputs, thread }: KeepingFacts,
): RunKeeping | undefined {
  const store = options.store ?? crew.store;
  if (store === undefined) return undefined;
  const what = `Crew "${crew.name}" kickoff`;
  const policy = storeErrorPolicy(crew, options);
  if (restore?.owner !== undefined) return { owner: restore.owner, policy };
  const owner = new RunOwner(store, id, crewLeaseMs(crew, options), clock, keepEvents(options));
  const encoded = encodeAt(inputs, 'inputs', (path, reason) =>
    InvalidInputsError.unstorable(what, path, reason),
  );
  const data = {
    inputs: encoded,
    ...(thread === undefined ? {} : { thread: thread.thread }),
    ...(owner.keepEvents ? { events: 'store' } : {}),
    ...(restore?.forkedFrom === undefined ? {} : { forkedFrom: { ...restore.forkedFrom } }),
  };
  const claim = { kind: 'crew' as const, name: crew.name, data, what };
  return {
    owner,
    policy,
    claim: thread === undefined ? claim : { ...claim, before: thread.claim, lost: thread.abandon },
  };
}

/** What a run's keeping is made of besides the crew and its options. */
interface KeepingFacts {
  id: string;
  clock: Clock;
  inputs: Record<string, unknown>;
  thread: CrewThread | undefined;
}

/** The run's thread (`options.thread`), checked: it needs a store (the option's, else the crew's). */
function threadOf(crew: RunnableCrew, options: RunOptions, id: string, clock: Clock): CrewThread | undefined {
  const store = options.store ?? crew.store;
  const leaseMs = crewLeaseMs(crew, options);
  return crewThread(options.thread, {
    crew: crew.name,
    id,
    store,
    clock,
    leaseMs,
    memory: crew.memory !== undefined,
  });
}

/** What the run's task runner is wired to. */
interface RunnerWiring {
  records: CrewRecords | undefined;
  restore: RunRestore | undefined;
  recorder: RunRecorder;
  gate: CallGate;
  plan: CrewPlan;
  /** The run's thread: the results of its earlier runs come first in the execution memory. */
  thread: CrewThread | undefined;
}

/**
 * The options of the run's task runner: its store writes (a settled task, unless a resume restored
 * it), restored results, gate, stream, executor and memory.
 */
function taskRunnerOptions(
  crew: RunnableCrew,
  processKind: string,
  options: RunOptions,
  { records, restore, recorder, gate, plan, thread }: RunnerWiring,
): TaskRunnerOptions {
  const restored = restore?.results ?? NOTHING_RESTORED;
  // A resumed run's restored results are stored already; a replay's or a fork's are its first commit.
  const storesAgain = (nodeId: string) => !restored.has(nodeId);
  return {
    store:
      records &&
      ((record, spec) =>
        storesAgain(record.nodeId)
          ? records.task(
              storedTaskResult(
                record,
                { description: spec.description, prompt: promptOf(spec), context: spec.context },
                { crew: crew.name, process: processKind },
              ),
            )
          : Promise.resolve()),
    restored: restored.size === 0 ? undefined : restored,
    gate,
    stream: options.stream,
    executor: crew.executor,
    delegation: factsOf(crew).delegates
      ? { agents: plan.agents, maxDepth: crew.maxDelegationDepth }
      : undefined,
    waiting: restore?.waiting,
    memory:
      crew.memory === undefined
        ? undefined
        : new RunMemory(crew.memory, () => [
            ...(thread?.earlier ?? []),
            ...recorder.settled.flatMap((r) =>
              r.output === undefined || r.nodeId === SUMMARY_NODE ? [] : [memoryEntry(r.nodeId, r.output)],
            ),
          ]),
  };
}

/** The lease of a run: the option's, else the crew's, else the default. */
export function crewLeaseMs(
  crew: { readonly leaseMs: number | undefined },
  options: { leaseMs?: number | undefined },
): number {
  const leaseMs = options.leaseMs ?? crew.leaseMs ?? DEFAULT_LEASE_MS;
  optionalInteger('Crew kickoff', 'leaseMs', leaseMs, 10);
  return leaseMs;
}

/** Whether a run keeps its events in its store (`events: 'store'`; `invalid_option` for another value). */
export function keepEvents(options: { events?: unknown }): boolean {
  return keepsEventsOption('Crew kickoff', options.events);
}

/** What a failed write does: the option's policy, else the crew's, else `stop`. */
function storeErrorPolicy(crew: RunnableCrew, options: RunOptions): StoreErrorPolicy {
  const policy = options.onStoreError ?? crew.onStoreError ?? 'stop';
  checkStoreErrorPolicy('Crew kickoff', policy);
  return policy;
}

/** Refuses a store error policy that is not `stop` or `continue` (`invalid_option`). */
export function checkStoreErrorPolicy(where: string, policy: unknown): void {
  if (policy !== undefined && policy !== 'stop' && policy !== 'continue') {
    throw new InvalidOptionError(where, 'onStoreError', "'stop' or 'continue'", policy);
  }
}

/** Refuses a kickoff whose agents name an unregistered provider (`unknown_provider`), before any call. */
function checkProviders(agents: readonly { llm: unknown }[], ...advisors: unknown[]): void {
  for (const holder of [...agents, ...advisors]) {
    const llm = typeof holder === 'object' && holder !== null && 'llm' in holder ? holder.llm : undefined;
    if (llm instanceof ProviderModel) llm.resolve();
  }
}
