import { type Observable, Subject } from 'rxjs';
import { describeThrown, InvalidOptionError, isStatecrewError } from '../../errors.js';
import { parseOptions } from '../../options/parse.js';
import type { RunHead, RunKind } from '../../stores/store.js';
import type { StatecrewEvent } from '../../types.js';
import { type Clock, toClock } from '../engine/clock.js';
import { GracefulStop } from './graceful-stop.js';
import { leaseIsLive } from './identity.js';
import {
  type RecoverableCrew,
  type RecoverableFlow,
  type RunnerOptions,
  runnerOptionsSchema,
} from './runner-options.js';
import { checkSchedules, firstSeen, type Schedule } from './schedules.js';

/** What one pass of a runner did. */
export interface RecoveryReport {
  /** The runs it resumed, each settled or paused by the time the pass resolved. */
  resumed: string[];
  /** The scheduled runs it started (each settled or paused by then too). */
  started: string[];
  /** The paused flow runs whose waiting steps' deadlines had passed: they went on, timed out. */
  timedOut: string[];
  /** Stuck runs it left alone: no definition of their name, or another runner took them first. */
  skipped: string[];
  /** Runs whose resume failed, with why. */
  failed: { id: string; error: string; code?: string }[];
}

/** A service that resumes stored runs whose owner is gone. */
export interface Runner {
  /** `run.recovered` and `run.skipped`, and every event of the runs it resumed. */
  readonly events$: Observable<StatecrewEvent>;
  /** One pass: resumes every stuck run it holds a definition of; resolves once they settled or paused. */
  recover(): Promise<RecoveryReport>;
  /**
   * Stops gracefully: stops polling; the runs it resumed start no further node, get `shutdownGraceMs`
   * to reach their next commit, then give their leases up, kept `running` for any runner to resume
   * (`run.suspended`). Resolves once each settled, paused or was suspended; called again while they
   * drain, it ends the grace at once.
   */
  close(): Promise<void>;
}

type Definition = { kind: 'flow'; flow: RecoverableFlow } | { kind: 'crew'; crew: RecoverableCrew };
type Outcome = { id: string } & (
  | { kind: 'resumed' | 'started' | 'skipped' | 'timedOut' }
  | { kind: 'failed'; error: unknown }
);

/**
 * Starts a runner over `store`: every `pollMs` it finds the stored runs that are `running` while
 * their lease has no live owner (their process died) and resumes each with the flow or crew of the
 * same name. Leases make this safe with several runners, or several processes, on one store: each
 * run is resumed once. A run whose definition it does not hold is left alone and reported once
 * (`run.skipped`).
 *
 * @example
 * const runner = createRunner({ store, flows: [refund], crews: [research] });
 * process.on('SIGTERM', () => runner.close());
 */
export function createRunner(given: RunnerOptions): Runner {
  const options = parseOptions(runnerOptionsSchema, 'createRunner', given);
  const definitions = definitionsByName(options);
  const flows = new Map((options.flows ?? []).map((flow) => [flow.name, flow]));
  const schedules = checkSchedules(options.schedules, new Set(flows.keys())).map((schedule) => {
    const flow = flows.get(schedule.flow) as RecoverableFlow;
    if (typeof flow.kickoff !== 'function') {
      throw new InvalidOptionError('createRunner', 'schedules', 'flows that have kickoff', schedule.flow);
    }
    const kickoff = flow.kickoff.bind(flow);
    return { schedule, kickoff };
  });
  const runner = new StuckRunRunner(options, definitions, toClock(options.clock), schedules);
  runner.poll();
  return runner;
}

/** The runner {@link createRunner} starts: its passes, its timer and the runs it resumed. */
class StuckRunRunner implements Runner {
  readonly #events = new Subject<StatecrewEvent>();
  /** Runs this runner resumed that have not settled yet, by id. */
  readonly #running = new Map<string, Promise<Outcome>>();
  /** Passes under way. */
  readonly #passes = new Set<Promise<unknown>>();
  /** Runs reported as left alone, so each is reported once. */
  readonly #reported = new Set<string>();
  readonly #pollMs: number;
  /** When this runner started, on its clock: a schedule with `catchUp: 'none'` starts no tick before. */
  readonly #startedAt: number;
  #closed = false;
  /** Aborted with a `GracefulStop` by `close`: the runs it resumed are suspended. */
  readonly #stopping = new AbortController();
  #timer: unknown;
  readonly events$: Observable<StatecrewEvent> = this.#events.asObservable();

  constructor(
    private readonly options: RunnerOptions,
    private readonly definitions: Map<string, Definition>,
    private readonly clock: Clock,
    private readonly schedules: readonly ScheduledFlow[] = [],
  ) {
    this.#pollMs = options.pollMs ?? 5000;
    this.#startedAt = clock.now();
  }

  async recover(): Promise<RecoveryReport> {
    const outcomes = await Promise.all(await this.#pass());
    return report(outcomes);
  }

  async close(): Promise<void> {
    const reason: unknown = this.#stopping.signal.reason;
    if (reason instanceof GracefulStop) reason.now();
    else this.#stopping.abort(new GracefulStop(this.options.shutdownGraceMs, 'the runner closed'));
    this.#closed = true;
    if (this.#timer !== undefined) this.clock.clearTimeout(this.#timer);
    // A pass under way registers what it starts; then every run it or an earlier pass started settles.
    await Promise.allSettled([...this.#passes]);
    await Promise.allSettled([...this.#running.values()]);
    (this.#stopping.signal.reason as GracefulStop).now();
    this.#events.complete();
  }

  /** One pass, known to `close` while it is under way. */
  #pass(): Promise<Promise<Outcome>[]> {
    const pass = this.#startPass();
    this.#passes.add(pass);
    void pass.finally(() => this.#passes.delete(pass)).catch(() => {});
    return pass;
  }

  /** Schedules the next pass on the runner's clock (a timer that keeps no process alive). */
  poll(): void {
    this.#timer = this.clock.setTimeout(() => {
      if (this.#closed) return;
      this.#pass().then(
        () => this.poll(),
        () => this.poll(),
      );
    }, this.#pollMs);
    (this.#timer as { unref?: () => void } | undefined)?.unref?.();
  }

  /** Starts resuming every stuck run; resolves once each was started, with their outcomes to come. */
  async #startPass(): Promise<Promise<Outcome>[]> {
    const heads = await this.options.store.listRuns({ statuses: ['running'] });
    const now = this.clock.now();
    const started: Promise<Outcome>[] = [];
    for (const head of heads) {
      // A run another pass of this runner goes on with: this pass reports how that ends.
      const going = this.#running.get(head.id);
      if (going !== undefined) {
        started.push(going);
        continue;
      }
      if (this.#closed || leaseIsLive(head.lease, now)) continue;
      const definition = this.definitions.get(key(head.kind, head.name));
      if (definition === undefined) {
        this.#reportSkipped(head);
        started.push(Promise.resolve({ id: head.id, kind: 'skipped' }));
        continue;
      }
      const outcome = this.#resumeOne(head, definition).finally(() => this.#running.delete(head.id));
      this.#running.set(head.id, outcome);
      started.push(outcome);
    }
    started.push(...(await this.#startDeadlines(now)));
    for (const schedule of this.schedules) {
      const tick = await this.#startTick(schedule, now);
      if (tick !== undefined) started.push(tick.outcome);
    }
    return started;
  }

  /**
   * Goes on with every paused flow run it holds a definition of whose waiting steps' deadline passed
   * (`resume` without an answer times them out); their outcomes to come.
   */
  async #startDeadlines(now: number): Promise<Promise<Outcome>[]> {
    const { store } = this.options;
    const started: Promise<Outcome>[] = [];
    for (const head of await store.listRuns({ statuses: ['paused'] })) {
      const definition = this.definitions.get(key(head.kind, head.name));
      if (this.#closed || definition?.kind !== 'flow') continue;
      const due = await definition.flow.nextDeadline(head.id, store);
      if (due === undefined || due > now) continue;
      // Looked at once the deadline was read: another pass of this runner may have taken it meanwhile,
      // and this pass then reports how that run ends.
      const going = this.#running.get(head.id);
      if (going !== undefined) {
        started.push(going);
        continue;
      }
      const outcome = this.#resumeOne(head, definition, 'timedOut').finally(() =>
        this.#running.delete(head.id),
      );
      this.#running.set(head.id, outcome);
      started.push(outcome);
    }
    return started;
  }

  /** Starts the run of `schedule`'s due tick, unless this or another runner did; its outcome to come. */
  async #startTick(
    scheduled: ScheduledFlow,
    now: number,
  ): Promise<{ outcome: Promise<Outcome> } | undefined> {
    const { store, leaseMs } = this.options;
    const { schedule } = scheduled;
    scheduled.since ??= firstSeen(store, schedule, now);
    const tick = schedule.dueTick(now, await scheduled.since, this.#startedAt);
    if (tick === undefined || this.#closed) return undefined;
    const id = schedule.runId(tick);
    if (scheduled.lastTick === id) return undefined;
    scheduled.lastTick = id;
    const inputs = { ...schedule.inputs, id };
    const run = scheduled
      .kickoff({ inputs, store, clock: this.clock, ...(leaseMs === undefined ? {} : { leaseMs }) })
      .then(
        (): Outcome => ({ id, kind: 'started' }),
        (error: unknown): Outcome =>
          // Another runner started this tick first: nothing for this one to do.
          isStatecrewError(error, 'run_exists') ? { id, kind: 'skipped' } : { id, kind: 'failed', error },
      );
    const head = { id, kind: 'flow' as const, name: schedule.flow };
    this.#emit(head, { type: 'run.scheduled', schedule: schedule.name, tick });
    const outcome = run.finally(() => this.#running.delete(id));
    this.#running.set(id, outcome);
    return { outcome };
  }

  #reportSkipped(head: RunHead): void {
    if (this.#reported.has(head.id)) return;
    this.#reported.add(head.id);
    this.#emit(head, {
      type: 'run.skipped',
      reason: `this runner holds no ${head.kind} named "${head.name}"`,
    });
  }

  async #resumeOne(
    head: RunHead,
    definition: Definition,
    kind: 'resumed' | 'timedOut' = 'resumed',
  ): Promise<Outcome> {
    const previousOwner = head.lease?.owner ?? null;
    // Another runner may have taken the run, or finished it, since it was listed: then nothing is left here.
    if (kind === 'resumed' && (await this.#movedOn(head))) return { id: head.id, kind: 'skipped' };
    let started = false;
    const onRun = (run: { events$: Observable<StatecrewEvent> }) => {
      started = true;
      if (kind === 'resumed') this.#emit(head, { type: 'run.recovered', previousOwner });
      else this.#emit(head, { type: 'run.deadline' });
      run.events$.subscribe({ next: (event) => this.#events.next(event), error: () => {} });
    };
    const { store, leaseMs } = this.options;
    const signal = this.#stopping.signal;
    const common = { store, clock: this.clock, onRun, signal, ...(leaseMs === undefined ? {} : { leaseMs }) };
    try {
      if (definition.kind === 'flow') await definition.flow.resume(head.id, undefined, common);
      else await definition.crew.resume(head.id, common);
      // A flow found completed by its claim is answered from the store: this runner ran nothing.
      return { id: head.id, kind: started ? kind : 'skipped' };
    } catch (error) {
      // Another runner claimed it first, or it moved on meanwhile: nothing for this one to do.
      if (isStatecrewError(error) && LEFT_TO_ANOTHER.has(error.code)) return { id: head.id, kind: 'skipped' };
      return { id: head.id, kind: 'failed', error };
    }
  }

  /** Whether the listed run `head` has moved on since (another owner claimed it, or it settled). */
  async #movedOn(head: RunHead): Promise<boolean> {
    const now = await this.options.store.readRun(head.id).catch(() => head);
    return now === undefined || now.version !== head.version || now.status !== head.status;
  }

  #emit(head: Pick<RunHead, 'id' | 'kind' | 'name'>, event: Record<string, unknown>): void {
    this.#events.next({
      runId: head.id,
      at: this.clock.now(),
      kind: head.kind,
      name: head.name,
      ...event,
    } as StatecrewEvent);
  }
}

const key = (kind: RunKind, name: string) => `${kind}:${name}`;

/** Codes that mean another owner took the run first, or an answer moved it on meanwhile. */
const LEFT_TO_ANOTHER: ReadonlySet<string> = new Set([
  'run_locked',
  'not_paused',
  'answer_required',
  // The runner closed while it ran: kept `running` with no lease, for any runner to resume.
  'suspended',
]);

/** A schedule with the kickoff of its flow, and what this runner knows of it. */
interface ScheduledFlow {
  readonly schedule: Schedule;
  readonly kickoff: NonNullable<RecoverableFlow['kickoff']>;
  /** When it was first seen on the store (read once). */
  since?: Promise<number>;
  /** The run id of the last tick this runner started or found started: a pass only asks for the latest. */
  lastTick?: string;
}

/** The definitions by kind and name; two of one kind and name are `invalid_option`. */
function definitionsByName(options: RunnerOptions): Map<string, Definition> {
  const found = new Map<string, Definition>();
  const add = (kind: RunKind, name: string, definition: Definition) => {
    if (found.has(key(kind, name))) {
      throw new InvalidOptionError('createRunner', `${kind}s`, `${kind}s of distinct names`, name);
    }
    found.set(key(kind, name), definition);
  };
  for (const flow of options.flows ?? []) add('flow', flow.name, { kind: 'flow', flow });
  for (const crew of options.crews ?? []) add('crew', crew.name, { kind: 'crew', crew });
  return found;
}

function report(outcomes: readonly Outcome[]): RecoveryReport {
  const result: RecoveryReport = { resumed: [], started: [], timedOut: [], skipped: [], failed: [] };
  for (const outcome of outcomes) {
    if (outcome.kind === 'failed') {
      const { error } = outcome;
      const code = isStatecrewError(error) ? error.code : undefined;
      result.failed.push({
        id: outcome.id,
        error: describeThrown(error),
        ...(code === undefined ? {} : { code }),
      });
    } else result[outcome.kind].push(outcome.id);
  }
  return result;
}
