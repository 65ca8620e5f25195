import { InvalidOptionError, RunLockedError } from '../../errors.js';
import type { RunHead } from '../../stores/store.js';
import type { Clock } from '../engine/clock.js';
import { leaseIsLive, leaseStanding } from './identity.js';
import type { RunOwner } from './run-owner.js';

/** The longest run id every store keeps. */
export const MAX_RUN_ID_LENGTH = 512;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Refuses a run id no store could keep exactly: 1–512 characters, no NUL, no lone surrogate (`invalid_option`). */
export function checkRunId(where: string, option: string, id: unknown): asserts id is string {
  const fits =
    typeof id === 'string' &&
    id.length >= 1 &&
    id.length <= MAX_RUN_ID_LENGTH &&
    !id.includes('\u0000') &&
    !LONE_SURROGATE.test(id);
  if (!fits) {
    throw new InvalidOptionError(
      where,
      option,
      `1–${MAX_RUN_ID_LENGTH} characters, without NUL or lone surrogates`,
      id,
    );
  }
}

/** How a claim goes with a run as its head says it stands. */
export type ClaimDecision = 'claim' | 'leave';

/** What {@link claimStoredRun} needs. */
export interface StoredRunClaim {
  owner: RunOwner;
  clock: Clock;
  /** Who asks, for errors: `Flow "refund" resume`. */
  what: string;
  /**
   * Whether to claim the run as its head stands (`leave`: it needs no owner, e.g. it completed);
   * throws to refuse (another definition's run, an answer to a run that is not paused).
   */
  decide(head: RunHead): ClaimDecision | Promise<ClaimDecision>;
  /**
   * The error for a claim that lost its race to another one while the winner's lease is no longer
   * live (an answer: the run moved on, so it is not the answer it was). Without it, the head is read
   * again and the claim tried anew.
   */
  lostRace?(head: RunHead): Error;
}

/** A claim's outcome: the head as it was read, and whether the run is now the owner's. */
export interface ClaimOutcome {
  head: RunHead;
  claimed: boolean;
}

const ATTEMPTS = 5;

/**
 * Claims a stored run for `owner`: reads its head, lets `decide` refuse or leave it, refuses a run
 * whose lease has a live owner (`run_locked`, naming it), and compare-and-sets the head's version
 * (the store refusing it too while the lease is live on its clock). A lost race reads the head
 * again, so the loser of two claims sees the winner's lease. Resolves undefined when nothing is
 * stored under the id.
 */
export async function claimStoredRun(claim: StoredRunClaim): Promise<ClaimOutcome | undefined> {
  const { owner } = claim;
  let last: RunHead | undefined;
  for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
    const head = await owner.store.readRun(owner.id);
    if (head === undefined) return undefined;
    last = head;
    if (attempt > 0 && claim.lostRace !== undefined) {
      if (head.lease !== null && leaseIsLive(head.lease, claim.clock.now())) throw locked(claim, head);
      throw claim.lostRace(head);
    }
    if ((await claim.decide(head)) === 'leave') return { head, claimed: false };
    const standing = leaseStanding(head.lease, claim.clock.now());
    if (standing === 'live') throw locked(claim, head);
    // A lease this host found free before it expired: the store lets the claim replace it by name.
    const claimed = await owner.take(head, standing === 'ownerGone' ? head.lease?.token : undefined);
    if (claimed) return { head, claimed: true };
  }
  throw locked(claim, last as RunHead);
}

function locked(claim: StoredRunClaim, head: RunHead): RunLockedError {
  const lease = head.lease;
  return new RunLockedError(
    claim.what,
    head.id,
    lease?.owner ?? 'another process',
    lease?.expiresAt ?? claim.clock.now(),
  );
}
