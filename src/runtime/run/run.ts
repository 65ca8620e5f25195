import type { ActorOptions, AnyActorLogic, AnyActorRef } from 'xstate';
import { createActor } from 'xstate';
import { RunExistsError } from '../../errors.js';
import type { JsonValue, RunKind, StoredRunStatus } from '../../stores/store.js';
import type { GracefulStop } from '../durable/graceful-stop.js';
import type { RunOwner } from '../durable/run-owner.js';
import type { Clock } from '../engine/clock.js';
import { RunCommits, type StoreErrorPolicy } from './run-commits.js';
import { type RunParts, runToEnd } from './run-driver.js';
import { RunEvents, type UnstampedEvent } from './run-events.js';

/** Where a run is kept: its owner, what a failed write does, and how it comes to hold its id. */
export interface RunKeeping {
  owner: RunOwner;
  /** What a failed write does (a lost lease always stops the run). @default 'stop' */
  policy?: StoreErrorPolicy | undefined;
  /**
   * A new run claims its id with this head (`run_exists` when the store holds it); absent for a run
   * its owner claimed already (a resume).
   */
  claim?: RunIdClaim | undefined;
  /**
   * The status a claimed run's head goes back to when the run ends before anything of it was written
   * (a paused run that never went on stays paused, and takes its answer again). @default as it is
   */
  untouched?: StoredRunStatus | undefined;
}

/** How a new run claims its id: the head it creates, and what it does before and when it lost. */
export interface RunIdClaim {
  kind: RunKind;
  name: string;
  data: JsonValue;
  what: string;
  /** Work before the head is created (a thread's entry taken); its rejection fails the run. */
  before?: (() => Promise<void>) | undefined;
  /** Called when the id was another run's (`run_exists`), before the run fails with it. */
  lost?: (() => Promise<void>) | undefined;
}

/** What makes a run: its id and clock, the reducer of its kind, and where it is kept. */
export interface RunSetup {
  id: string;
  clock: Clock;
  /** Folds each event, and when it happened, into the run's result (a crew's or a flow's recorder). */
  reduce(event: UnstampedEvent, at: number): void;
  keeping?: RunKeeping | undefined;
}

/** Where a run's supervisor sits: under a parent actor (a crew in a flow step), or with an inspector. */
export interface RunPlacement {
  parent?: AnyActorRef | undefined;
  inspect?: ActorOptions<AnyActorLogic>['inspect'] | undefined;
}

/** What driving a run to its end needs besides what the run holds itself. */
export type DriveParts<T> = Omit<RunParts<T>, 'hub' | 'halted' | 'ready' | 'release' | 'letGo'> & {
  /** Work after the claim and before the supervisor starts (a flow's first header). */
  afterClaim?(): Promise<void>;
};

/**
 * One run of a crew or a flow: the parts every kind of run shares, in one object. Its one event door
 * (`events`: what feeds the result, the kept log, subscribers and telemetry), its one commit path over
 * its owner (`commits`: fenced, one after the other, halting the run on a failed write or a lost
 * lease), the claim of its id and its release, and the drive of its supervisor to its end (start,
 * abort, finish). A crew and a flow differ only in what they plug in: their supervisor, their node
 * runs' work, the records a settled node writes, and their result.
 */
export class Run {
  readonly id: string;
  readonly clock: Clock;
  readonly events: RunEvents;
  /** The run's commit path; undefined for a run without a store. */
  readonly commits: RunCommits | undefined;
  /** Rejects with the error the run must stop with at once (a failed write, a lost lease). */
  readonly halted: Promise<never>;
  readonly #keeping: RunKeeping | undefined;
  #halt: (error: unknown) => void = () => {};
  /** Whether the run holds its id in the store (its claim landed). */
  #holdsId = false;
  /** Whether anything of the run was written since it was claimed. */
  #written = false;

  constructor(setup: RunSetup) {
    this.id = setup.id;
    this.clock = setup.clock;
    this.events = new RunEvents(setup.id, setup.clock.now, setup.reduce);
    this.halted = new Promise<never>((_, reject) => {
      this.#halt = reject;
    });
    this.halted.catch(() => {});
    this.#keeping = setup.keeping;
    const keeping = setup.keeping;
    this.commits =
      keeping === undefined
        ? undefined
        : new RunCommits(keeping.owner, {
            policy: keeping.policy ?? 'stop',
            halt: (error) => this.halt(error),
            letGo: (record) => this.events.emit({ type: 'store.error', ...record }),
          });
  }

  /** Stops the run at once with `error`. */
  halt(error: unknown): void {
    this.#halt(error);
  }

  /** Whether the run holds its id in its store (an abort before that must not touch a stored run). */
  get holdsId(): boolean {
    return this.#holdsId;
  }

  /**
   * Claims the run's id (a new run: `run_exists` when the store holds it; a resume: its owner did),
   * hands its events to its journal when it keeps them, and starts renewing its lease.
   */
  async claim(): Promise<void> {
    const keeping = this.#keeping;
    if (keeping === undefined) return;
    const { owner, claim } = keeping;
    await claim?.before?.();
    if (claim !== undefined && !(await owner.create(claim.kind, claim.name, claim.data))) {
      await claim.lost?.();
      const head = await owner.store.readRun(owner.id);
      throw new RunExistsError(claim.what, owner.id, head?.kind ?? claim.kind, head?.name ?? claim.name);
    }
    this.#holdsId = true;
    const { journal } = owner;
    if (journal !== undefined) {
      journal.start();
      this.events.keepIn(journal);
    }
    owner.startHeartbeat((lost) => this.halt(lost));
  }

  /** Commits what is staged (the run's first write after its claim, say), rejecting when it failed. */
  async write(): Promise<void> {
    await this.commits?.commitLast({});
    this.#written = true;
  }

  /** Gives the lease up if the run still holds it (it ended without its last write); never rejects. */
  release(): void {
    void this.#giveUp();
  }

  /**
   * A suspended run (see `GracefulStop`): once its claim settled and its commits under way landed (or
   * the grace ended), gives its lease up with its head left `running`, for any runner to resume it.
   */
  async suspend(stop: GracefulStop, ready: Promise<void>): Promise<void> {
    await ready.catch(() => {});
    if (!this.#holdsId) return;
    await Promise.race([this.commits?.settled(), stop.expired]);
    await this.#giveUp();
  }

  #giveUp(): Promise<void> {
    const keeping = this.#keeping;
    if (keeping === undefined) return Promise.resolve();
    return keeping.owner.releaseQuietly(this.#written ? undefined : keeping.untouched);
  }

  /**
   * Creates the run's supervisor actor (not started) under its placement: after each of its
   * transitions, what the transition staged is committed (the runner starts nothing more meanwhile)
   * and the work it asked of `runner` runs.
   */
  supervise(
    logic: AnyActorLogic,
    input: unknown,
    id: string,
    placement: RunPlacement,
    runner: { hold(write: Promise<unknown>): void; flush(): void },
  ): AnyActorRef {
    const system =
      placement.parent !== undefined
        ? { parent: placement.parent }
        : placement.inspect === undefined
          ? {}
          : { inspect: placement.inspect };
    const actor = createActor(logic, { input, id, ...system });
    const { commits } = this;
    actor.subscribe({
      next: () => {
        if (commits?.staged === true) runner.hold(commits.commit());
        runner.flush();
      },
      error: () => {},
    });
    return actor;
  }

  /**
   * Drives the run's supervisor to its end (see `runToEnd`): the claim first, then `afterClaim`; a
   * halt fails it; its end gives the lease up if it still holds it.
   */
  drive<T>(parts: DriveParts<T>): Promise<T> {
    const { afterClaim, ...rest } = parts;
    const ready = this.#keeping === undefined ? undefined : this.claim().then(() => afterClaim?.());
    return runToEnd<T>({
      ...rest,
      hub: this.events,
      halted: this.halted,
      ...(ready === undefined ? {} : { ready, letGo: (stop: GracefulStop) => this.suspend(stop, ready) }),
      release: () => this.release(),
    });
  }
}
