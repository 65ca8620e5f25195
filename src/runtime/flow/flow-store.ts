import { CorruptSnapshotError, FlowExistsError, SnapshotVersionError } from '../../errors.js';
import type { JsonValue, Store } from '../../stores/store.js';
import { RUN_KEY } from '../crew-store.js';
import { FLOW_SNAPSHOT_VERSION, type FlowSnapshot } from './snapshot.js';

/** Reads a flow run's snapshot from `store`; undefined when there is none. */
export async function loadSnapshot(store: Store, id: string): Promise<FlowSnapshot | undefined> {
  const record = await store.get('flow_runs', id, RUN_KEY);
  if (record === undefined) return undefined;
  const snapshot = record.value as unknown as Partial<FlowSnapshot> | null;
  if (snapshot === null || typeof snapshot !== 'object' || Array.isArray(snapshot)) {
    throw new CorruptSnapshotError('flow_runs', id, RUN_KEY, 'not a flow snapshot');
  }
  if (snapshot.version !== FLOW_SNAPSHOT_VERSION) {
    throw new SnapshotVersionError(`Flow run ${id}`, snapshot.version);
  }
  if (typeof snapshot.flow !== 'string' || !Array.isArray(snapshot.rounds) || !Array.isArray(snapshot.done)) {
    throw new CorruptSnapshotError('flow_runs', id, RUN_KEY, 'fields of a flow snapshot are missing');
  }
  return snapshot as FlowSnapshot;
}

/**
 * Writes one flow run's snapshots, one after another in the order they were taken (so a later
 * snapshot never lands before an earlier one). A failed write fails the run: `failure` holds it.
 */
export class FlowRunWriter {
  #chain: Promise<void> = Promise.resolve();
  /** The first write that failed, if one did. */
  failure: unknown;

  constructor(
    private readonly store: Store,
    private readonly id: string,
  ) {}

  /** Claims the run's id with its first snapshot: rejects with `flow_exists` when a run holds it. */
  async claim(snapshot: FlowSnapshot): Promise<void> {
    const claimed = await this.store.insert('flow_runs', this.id, RUN_KEY, snapshot as unknown as JsonValue);
    if (!claimed) throw new FlowExistsError(snapshot.flow, this.id);
  }

  /** Writes `snapshot` after the ones before it; resolves once it landed or failed (never rejects). */
  write(snapshot: FlowSnapshot): Promise<void> {
    const value = snapshot as unknown as JsonValue;
    this.#chain = this.#chain.then(async () => {
      if (this.failure !== undefined) return;
      try {
        await this.store.put('flow_runs', this.id, RUN_KEY, value);
      } catch (error) {
        this.failure = error;
      }
    });
    return this.#chain;
  }
}
