import type { AnyActorRef } from 'xstate';
import type { CrewOutput, IgnoredKey, MissingInput } from '../../types.js';
import type { Clock } from '../engine/clock.js';
import type { SupervisorOutput, SupervisorSetup } from '../process.js';
import type { DriveParts, RunPlacement } from '../run/run.js';
import type { RunStage } from '../run/run-driver.js';
import { isPaused, pendingIn } from './crew-pause.js';
import type { CrewRecords } from './crew-records.js';
import type { CrewScopeParts } from './crew-scope.js';
import { missingInputsWarning } from './missing-inputs.js';
import { buildCrewOutput, buildCrewOutputInSlices, type RunFacts } from './result.js';
import type { RunnableCrew, RunRestore } from './runnable-crew.js';
import { SUMMARY_NODE, summaryContext, summarySupervisor } from './summary.js';
import type { Task } from './task.js';
import { createTaskRunner, type TaskRunner, type TaskRunnerOptions } from './task-runner.js';

/** Where a run's actor sits: its id, and its parent or inspector. */
export interface ActorPlacement extends RunPlacement {
  id: string;
}

/** What the end of a crew run is made of: the wired run, and the setup of its supervisor. */
export interface CrewRunEndParts {
  id: string;
  crew: RunnableCrew;
  /** The process's kind (`metadata.process`, `run.started`). */
  process: string;
  restore: RunRestore | undefined;
  /** The run's scope as its supervisor got it: the summary stage works in the same. */
  scope: CrewScopeParts;
  clock: Clock;
  /** The options of the run's task runner: the summary's runner takes them too. */
  runnerOptions: TaskRunnerOptions;
  /** What the run writes to its store; undefined for a run without one. */
  records: CrewRecords | undefined;
  supervisor: SupervisorSetup;
  /** Where the summary stage's actor sits. */
  summaryActor: ActorPlacement;
  /** When the run started, for `totalTimeMs`. */
  startedAt: number;
  /** The placeholders no input fills: `run.warning` and `metadata.missingInputs` when there are some. */
  missingInputs: readonly MissingInput[];
  /** The thread the run is on (`metadata.thread`). */
  thread?: string | undefined;
}

/**
 * How one crew run ends: its result from its supervisor's output, its summary stage, its store's last
 * writes, and what it releases.
 */
export class CrewRunEnd {
  readonly #parts: CrewRunEndParts;

  constructor(parts: CrewRunEndParts) {
    this.#parts = parts;
  }

  /** What the run drives: `actor` and its `runner`, with this run's result, store and summary. */
  driveParts(
    actor: AnyActorRef,
    runner: TaskRunner,
    signal: AbortSignal | undefined,
  ): DriveParts<CrewOutput> {
    const { crew, records, startedAt, scope } = this.#parts;
    return {
      supervisor: actor,
      runner,
      signal,
      nodes: scope.plan.tasks.length,
      name: crew.name,
      process: this.#parts.process,
      ...(this.#parts.missingInputs.length === 0 && this.#ignoredKeys().length === 0
        ? {}
        : { started: () => this.#warn() }),
      complete: async (output) => {
        const finished = output as SupervisorOutput;
        if (finished.error !== undefined) throw finished.error;
        const out = await this.#completedOutput(finished);
        // Before `run.completed` (status `paused`): what the run waits for.
        if (out.pending !== undefined) scope.hub.emit({ type: 'crew.paused', pending: out.pending });
        return { result: out, status: out.status, totalTimeMs: out.totalTimeMs };
      },
      ...(records === undefined
        ? {}
        : {
            finish: (out: CrewOutput) => records.end(out, startedAt),
            // An aborted run is kept as such, with what it got to: `resume` goes on with it.
            keepAborted: (out: CrewOutput) => records.end(out, startedAt, true).catch(() => {}),
          }),
      partial: (output) =>
        this.output((output as SupervisorOutput | undefined) ?? { error: undefined }, true),
      ...(crew.summary === undefined ? {} : { epilogue: (output: unknown) => this.#summaryEpilogue(output) }),
    };
  }

  /** The result contract from the supervisor's output (`aborted`: the partial result of an aborted run). */
  output(output: SupervisorOutput, aborted: boolean): CrewOutput {
    const { scope } = this.#parts;
    const summary = this.#parts.supervisor.summarize(output);
    return this.#mended(buildCrewOutput(scope.recorder, summary, this.#facts(aborted)));
  }

  /** The result of a run that ended, built in slices that yield to the host (a big run's is large). */
  async #completedOutput(output: SupervisorOutput): Promise<CrewOutput> {
    const { scope } = this.#parts;
    const summary = this.#parts.supervisor.summarize(output);
    return this.#mended(await buildCrewOutputInSlices(scope.recorder, summary, this.#facts(false)));
  }

  /** The run's facts its result is built with. */
  #facts(aborted: boolean): RunFacts {
    const { crew, scope, clock } = this.#parts;
    const { plan } = scope;
    return {
      executionId: this.#parts.id,
      process: this.#parts.process,
      totalTimeMs: clock.now() - this.#parts.startedAt,
      // The crew's own task object, else a task of the same name (a copy, a plain `{ name }`).
      nodeIdOf: (task) =>
        crew.nodeIdOf(task as Task) ??
        (task.name !== undefined && plan.byNodeId.has(task.name) ? task.name : undefined),
      aborted,
      ...(crew.summary === undefined ? {} : { summaryNode: SUMMARY_NODE }),
    };
  }

  /** A result with what the run adds to it: what it waits for, what it restored, its missing inputs. */
  #mended(out: CrewOutput): CrewOutput {
    const { restore, scope } = this.#parts;
    const { plan } = scope;
    if (out.status === 'paused') out.pending = pendingIn(scope.recorder.settled, plan);
    if (restore !== undefined) out.metadata.restored = [...scope.restored.keys()];
    if (restore?.replayOf !== undefined) out.metadata.replayOf = restore.replayOf;
    if (this.#parts.thread !== undefined) out.metadata.thread = this.#parts.thread;
    if (restore?.forkedFrom !== undefined) out.metadata.forkedFrom = { ...restore.forkedFrom };
    const missing = this.#parts.missingInputs;
    if (missing.length > 0) out.metadata.missingInputs = missing.map((m) => ({ ...m, where: [...m.where] }));
    const ignored = this.#ignoredKeys();
    if (ignored.length > 0) out.metadata.ignoredKeys = ignored.map((key) => ({ ...key }));
    return out;
  }

  /** The keys of the crew's YAML that `loadCrew` ignored. */
  #ignoredKeys(): readonly IgnoredKey[] {
    return this.#parts.crew.ignoredKeys ?? [];
  }

  /** Says once, right after `run.started`, which keys the crew's YAML had ignored and which placeholders no input fills. */
  #warn(): void {
    const ignoredKeys = this.#ignoredKeys().map((key) => ({ ...key }));
    if (ignoredKeys.length > 0) {
      const message = ignoredKeys.map((key) => `${key.file} line ${key.line}: ${key.message}`).join('; ');
      this.#parts.scope.hub.emit({
        type: 'run.warning',
        code: 'ignored_key',
        message,
        details: { ignoredKeys },
      });
    }
    const missingInputs = [...this.#parts.missingInputs];
    if (missingInputs.length === 0) return;
    this.#parts.scope.hub.emit({
      type: 'run.warning',
      code: 'missing_input',
      message: missingInputsWarning(missingInputs),
      details: { missingInputs },
    });
  }

  /** After a run whose supervisor ended well and completed some task: its summary node's stage. */
  #summaryEpilogue(output: unknown): RunStage | undefined {
    const { crew, scope, clock, runnerOptions } = this.#parts;
    const { recorder, hub, restored, reached, gate } = scope;
    const node = crew.summary;
    const completed = recorder.settled.flatMap((r) => r.output ?? []);
    if (node === undefined || (output as SupervisorOutput).error !== undefined || completed.length === 0) {
      return undefined;
    }
    // A run that waits for a human is summarized once it goes on to its end.
    if (recorder.settled.some(isPaused)) return undefined;
    // The summarizer is the crew's own agent, in no worker's registry: it runs here.
    const summaryRunner = createTaskRunner(hub, recorder, clock, { ...runnerOptions, executor: undefined });
    const stage = summarySupervisor(
      node,
      { runner: summaryRunner, recorder, hub, crew, restored, reached, gate },
      summaryContext(completed),
      scope.plan.inputs,
      this.#parts.summaryActor,
    );
    return { supervisor: stage.actor, runner: summaryRunner };
  }
}
