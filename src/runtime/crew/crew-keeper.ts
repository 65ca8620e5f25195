import { InvalidInputsError, RunExistsError } from '../../errors.js';
import type { JsonValue } from '../../stores/store.js';
import type { CrewOutput, StatecrewEvent } from '../../types.js';
import { encodeAt } from '../durable/codec.js';
import type { RunOwner } from '../durable/run-owner.js';
import type { EventHub } from '../engine/event-hub.js';
import {
  CrewStoreWriter,
  RUN_KEY,
  type StoredTaskResult,
  type StoreErrorPolicy,
  storedExecution,
} from './crew-store.js';

/** What a crew run's keeper knows of its run. */
export interface CrewKeeperParts {
  crew: string;
  hub: EventHub;
  policy: StoreErrorPolicy;
  inputs: Readonly<Record<string, unknown>>;
  /** Whether `owner` already claimed the stored run (a resume): else the keeper claims a new one. */
  claimed: boolean;
}

/**
 * Keeps one crew run in its store through the run's owner: the claim of a new run's id with its
 * inputs (`run_exists` when the store holds the id), each settled task run as a fenced commit, the
 * run's document with its status at the end (releasing the lease). A failed write stops the run
 * (`halted` rejects) unless the policy lets it go.
 */
export class CrewKeeper {
  readonly writer: CrewStoreWriter;
  /** Rejects when the run must stop: a write failed, or the lease was lost. */
  readonly halted: Promise<never>;
  readonly #inputs: JsonValue;
  #halt: (error: unknown) => void = () => {};

  constructor(
    private readonly owner: RunOwner,
    private readonly parts: CrewKeeperParts,
  ) {
    this.halted = new Promise<never>((_, reject) => {
      this.#halt = reject;
    });
    this.writer = new CrewStoreWriter(owner, parts.hub, parts.policy, (error) => this.#halt(error));
    this.#inputs = encodeAt(parts.inputs, 'inputs', (path, reason) =>
      InvalidInputsError.unstorable(`Crew "${parts.crew}" kickoff`, path, reason),
    );
  }

  /** Claims the run (a new one: its id and inputs) and starts renewing its lease. */
  async ready(): Promise<void> {
    if (!this.parts.claimed) await this.#claimNew();
    this.owner.journal?.listen(this.parts.hub.events$);
    this.owner.startHeartbeat((lost) => this.#halt(lost));
  }

  /** Hears the run's last event before its end is written: a run that keeps its events writes it then. */
  closing(event: StatecrewEvent): void {
    this.owner.journal?.close(event);
  }

  /** Stores a settled task run; resolves once it landed or failed (never rejects). */
  storeTask(result: StoredTaskResult): Promise<void> {
    return this.writer.writeTask(result);
  }

  /** Writes the run's document with its status and gives the lease up; `metadata.storeErrors` says what was let go. */
  async finish(out: CrewOutput, startedAt: number, aborted = false): Promise<void> {
    const document = storedExecution(out, this.parts.crew, startedAt);
    await this.writer.writeExecution(aborted ? { ...document, status: 'aborted' } : document);
    out.metadata.storeErrors = [...this.writer.errors];
  }

  /** Gives the lease up in the background if the run ends without `finish` (a failure); never rejects. */
  end(): void {
    void this.owner.releaseQuietly();
  }

  async #claimNew(): Promise<void> {
    const { store, id } = this.owner;
    const what = `Crew "${this.parts.crew}" kickoff`;
    // A run stored before run heads existed has only its records.
    const [results, document] = await Promise.all([
      store.list('crew_task_results', id),
      store.get('crew_executions', id, RUN_KEY),
    ]);
    if (results.length > 0 || document !== undefined)
      throw new RunExistsError(what, id, 'crew', this.parts.crew);
    const data = { inputs: this.#inputs, ...(this.owner.keepEvents ? { events: 'store' } : {}) };
    if (await this.owner.create('crew', this.parts.crew, data)) return;
    const head = await store.readRun(id);
    throw new RunExistsError(what, id, head?.kind ?? 'crew', head?.name ?? this.parts.crew);
  }
}
