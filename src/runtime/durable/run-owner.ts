import { isStatecrewError, LeaseLostError, StoreUnavailableError } from '../../errors.js';
import type {
  JsonValue,
  RecordWrite,
  RunHead,
  RunKind,
  RunLease,
  Store,
  StoredRunStatus,
} from '../../stores/store.js';
import type { Clock } from '../engine/clock.js';
import { EventJournal } from './event-journal.js';
import { lastStoredSeq } from './event-record.js';
import { dropToken, holdToken, ownerIdentity } from './identity.js';

/** How long a run's lease lasts without renewal, in ms, unless told otherwise. */
export const DEFAULT_LEASE_MS = 15_000;

/** Whether a run's head data asks for its events to be kept (`events: 'store'`). */
function keepsEvents(data: JsonValue): boolean {
  return typeof data === 'object' && data !== null && !Array.isArray(data) && data.events === 'store';
}

/** A change a commit makes to the run's head besides its records. */
export interface HeadChange {
  status?: StoredRunStatus | undefined;
  /** The run settled or paused: its lease is given up. */
  release?: boolean | undefined;
}

/**
 * One run's ownership of its stored record: the lease it claimed (a new run's, or a stored run's by
 * compare-and-set), the heartbeat that renews it every `leaseMs / 3`, and the fenced commits that
 * carry its token. Once the lease is found taken — by a refused commit or a refused renewal — every
 * later commit rejects with `lease_lost` at once.
 */
export class RunOwner {
  readonly token = globalThis.crypto.randomUUID();
  /** Set once the lease was found taken by another owner. */
  lost: LeaseLostError | undefined;
  /**
   * The run's kept events, when it keeps them (its head's data says `events: 'store'`): set by the
   * claim, written with every commit.
   */
  journal: EventJournal | undefined;
  #heartbeat: unknown;
  #holding = false;
  /** Whether a commit gave the lease up already. */
  #released = false;

  constructor(
    readonly store: Store,
    readonly id: string,
    readonly leaseMs: number,
    private readonly clock: Clock,
    /** Keep the run's events (`events: 'store'`) even when its head does not ask for it. */
    readonly keepEvents = false,
  ) {}

  /**
   * The lease this owner writes: its identity, token and a fresh expiry. `ttlMs` lets the store set
   * the expiry on its own clock; `expiresAt`, on the run's clock, serves a store that does not.
   */
  lease(): RunLease {
    const { owner, host, pid, thread, started } = ownerIdentity();
    const expiresAt = this.clock.now() + this.leaseMs;
    const lease: RunLease = { owner, host, pid, thread, token: this.token, expiresAt, ttlMs: this.leaseMs };
    if (started !== undefined) lease.started = started;
    return lease;
  }

  /** Claims a new run's id with its head; resolves false when a run already has it. */
  async create(kind: RunKind, name: string, data: JsonValue): Promise<boolean> {
    const now = this.clock.now();
    const head: RunHead = {
      id: this.id,
      kind,
      name,
      status: 'running',
      version: 1,
      lease: this.lease(),
      data,
      createdAt: now,
      updatedAt: now,
    };
    const created = await this.#call(() => this.store.createRun(head));
    if (created) {
      this.#hold();
      if (this.keepEvents || keepsEvents(data)) this.journal = new EventJournal(0, this);
    }
    return created;
  }

  /**
   * Claims a stored run whose head is `head` (compare-and-set on its version); resolves whether it
   * did. `replaces`: the token of its lease, found free by this host though unexpired.
   */
  async take(head: RunHead, replaces?: string): Promise<boolean> {
    const claim = {
      status: 'running' as const,
      lease: this.lease(),
      ...(replaces === undefined ? {} : { replaces }),
    };
    const taken = await this.#call(() => this.store.claimRun(head.id, head.version, claim));
    if (taken) {
      this.#hold();
      if (this.keepEvents || keepsEvents(head.data)) await this.#openJournal(head.status);
    }
    return taken;
  }

  /**
   * Writes `writes` and the head change in one fenced commit. Rejects with `lease_lost` when the lease
   * is no longer this owner's, and with the store's error (`store_unavailable`, …) when it failed.
   */
  async commit(writes: readonly RecordWrite[], change: HeadChange = {}): Promise<void> {
    if (this.lost !== undefined) throw this.lost;
    const events = this.journal?.drain() ?? [];
    let committed: boolean;
    try {
      committed = await this.store.commit(this.id, {
        token: this.token,
        writes: events.length === 0 ? writes : [...writes, ...events],
        status: change.status,
        release: change.release,
      });
    } catch (error) {
      this.journal?.landed(false);
      throw this.#storeError(error);
    }
    this.journal?.landed(committed);
    if (!committed) {
      this.lost = new LeaseLostError(this.id);
      throw this.lost;
    }
    if (change.release === true) {
      this.#released = true;
      this.end();
    }
  }

  /**
   * Gives the lease up in the store if it is still this owner's; never rejects. With `status`, the
   * head goes back to it (a claimed run that wrote nothing is left as the claim found it).
   */
  async releaseQuietly(status?: StoredRunStatus): Promise<void> {
    const held = this.#holding;
    this.end();
    if (!held || this.#released || this.lost !== undefined) return;
    this.#released = true;
    const commit = {
      token: this.token,
      writes: this.journal?.drain() ?? [],
      release: true,
      ...(status === undefined ? {} : { status }),
    };
    await this.store.commit(this.id, commit).catch(() => false);
  }

  /**
   * Renews the lease every `leaseMs / 3` on the run's clock until `end`; `onLost` hears of a renewal
   * the store refused (another owner took the run). A renewal that fails to reach the store is tried
   * again at the next beat: the fence keeps writes safe meanwhile.
   */
  startHeartbeat(onLost: (error: LeaseLostError) => void): void {
    const beat = () => {
      this.#heartbeat = this.clock.setTimeout(
        async () => {
          if (!this.#holding) return;
          const renewed = await this.store
            .renewLease(this.id, this.token, this.clock.now() + this.leaseMs, this.leaseMs)
            .catch(() => undefined);
          if (!this.#holding) return;
          if (renewed === false) {
            this.lost ??= new LeaseLostError(this.id);
            this.end();
            onLost(this.lost);
            return;
          }
          beat();
        },
        Math.max(1, Math.floor(this.leaseMs / 3)),
      );
      // A heartbeat alone never keeps a process alive.
      (this.#heartbeat as { unref?: () => void } | undefined)?.unref?.();
    };
    if (this.#holding) beat();
  }

  /** Stops the heartbeat; this thread no longer counts the lease as held by a live run. */
  end(): void {
    this.#holding = false;
    if (this.#heartbeat !== undefined) this.clock.clearTimeout(this.#heartbeat);
    this.#heartbeat = undefined;
    dropToken(this.token);
  }

  /**
   * Goes on with the stored run's kept events after their last number. A store that cannot say gives
   * the claim back (the head as it was) and rejects.
   */
  async #openJournal(status: StoredRunStatus): Promise<void> {
    try {
      this.journal = new EventJournal(await this.#call(() => lastStoredSeq(this.store, this.id)), this);
    } catch (error) {
      await this.releaseQuietly(status);
      throw error;
    }
  }

  #hold(): void {
    this.#holding = true;
    holdToken(this.token);
  }

  /** A store call whose failure is always a `StatecrewError` (a user's store may throw anything). */
  async #call<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      throw this.#storeError(error);
    }
  }

  /** A store's failure as a `StatecrewError`: its own when it is one, else `store_unavailable`. */
  #storeError(error: unknown): unknown {
    if (isStatecrewError(error)) return error;
    return new StoreUnavailableError(`${this.store.kind} store`, `run "${this.id}"`, error);
  }
}
