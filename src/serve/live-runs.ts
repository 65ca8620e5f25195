import type { Observable } from 'rxjs';
import type { GracefulStop } from '../runtime/durable/graceful-stop.js';
import type { StatecrewEvent } from '../types.js';

/** A run this server runs now, as the routes that follow it read it. */
export interface LiveRun {
  /** Every event of the run from the moment the server started (or resumed) it; completes at its end. */
  events$: Observable<StatecrewEvent>;
  /** Resolves (never rejects) once the run settled, paused or was aborted, and left the registry. */
  done: Promise<void>;
}

/** A live run with what stops it. */
interface Entry extends LiveRun {
  kind: 'crew' | 'flow';
  definition: string;
  controller: AbortController;
}

/**
 * The runs started or resumed in this process, by id: each with its abort controller and its event
 * stream, until it settles. The event routes subscribe to live runs through it; `abort` stops one.
 */
export class LiveRuns {
  readonly #runs = new Map<string, Entry>();
  /** Every run asked for here that has not settled, tracked yet or not (its claim may be in flight). */
  readonly #asked = new Set<{ controller: AbortController; done: Promise<void> }>();
  /** The graceful stop under way, once the server began to close. */
  #stopping: GracefulStop | undefined;

  /**
   * Notes a run this server starts or resumes from the moment it is asked for (before its claim
   * landed) until `result` settles, so that a graceful stop reaches it too: one asked for while the
   * server stops is stopped at once, kept for a runner.
   */
  asked(controller: AbortController, result: Promise<unknown>): void {
    const entry = { controller, done: result.then(settledQuietly, settledQuietly) };
    this.#asked.add(entry);
    void entry.done.then(() => this.#asked.delete(entry));
    if (this.#stopping !== undefined) controller.abort(this.#stopping);
  }

  /** The live run `id`, if this process runs it now. */
  get(id: string): LiveRun | undefined {
    const entry = this.#runs.get(id);
    return entry === undefined ? undefined : { events$: entry.events$, done: entry.done };
  }

  /** Whether this process runs `id` now. */
  has(id: string): boolean {
    return this.#runs.has(id);
  }

  /** The ids of the live runs. */
  ids(): string[] {
    return [...this.#runs.keys()];
  }

  /**
   * Tracks a run from the moment it holds its id (its claim in the store) until `result` settles
   * (whichever way): `controller` aborts it. Only a run that holds `id` may be tracked under it, so a
   * run already tracked under `id` has given the id up, and is replaced (its entry was about to leave).
   */
  track(
    id: string,
    run: {
      kind: 'crew' | 'flow';
      definition: string;
      events$: Observable<StatecrewEvent>;
      result: Promise<unknown>;
    },
    controller: AbortController,
  ): LiveRun {
    const done = run.result.then(
      () => undefined,
      () => undefined,
    );
    const entry: Entry = {
      kind: run.kind,
      definition: run.definition,
      events$: run.events$,
      done,
      controller,
    };
    this.#runs.set(id, entry);
    void done.then(() => {
      if (this.#runs.get(id) === entry) this.#runs.delete(id);
    });
    return { events$: entry.events$, done };
  }

  /** Aborts live run `id` and resolves once it settled; false when this process does not run it. */
  async abort(id: string, reason: unknown): Promise<boolean> {
    const entry = this.#runs.get(id);
    if (entry === undefined) return false;
    entry.controller.abort(reason);
    await entry.done;
    return true;
  }

  /** Aborts every live run and resolves once all settled. */
  async abortAll(reason: unknown): Promise<void> {
    await Promise.all(this.ids().map((id) => this.abort(id, reason)));
  }

  /**
   * Stops every live run gracefully (see `GracefulStop`): each starts nothing more, gets `stop`'s
   * grace to reach its next commit and gives its lease up, kept `running` for any runner to resume.
   * Resolves once all settled.
   */
  async suspendAll(stop: GracefulStop): Promise<void> {
    this.#stopping = stop;
    const asked = [...this.#asked];
    for (const run of asked) run.controller.abort(stop);
    await Promise.all([this.abortAll(stop), ...asked.map((run) => run.done)]);
  }
}

function settledQuietly(): void {}
