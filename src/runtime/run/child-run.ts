import type { AnyActorRef } from 'xstate';
import type { Store } from '../../stores/store.js';
import type { CrewPending, MemoryEntry, StatecrewEvent } from '../../types.js';
import type { ClockOption } from '../engine/clock.js';
import type { HumanAnswers } from './answers.js';

/**
 * Where a run started by a node of another run lives (a crew a flow step kicks off): under the node's
 * actor, on the parent's clock and signal, its events relayed into the parent's.
 */
export interface ChildRunScope {
  /** The node run's actor: the child's supervisor joins its actor system. */
  parent: AnyActorRef;
  signal: AbortSignal;
  clock: ClockOption;
  /** The child's inputs, and its id when the step gives one. */
  inputs?: Record<string, unknown> | undefined;
  executionId?: string | undefined;
  /** Hears each of the child's events (the parent publishes them, tagged with its node). */
  relay(event: StatecrewEvent): void;
  /** Hears each task run of the child that completed, as the parent's execution memory keeps it. */
  completed(entry: MemoryEntry): void;
  /**
   * Where a child that could pause for a human is kept, under an id derived from the parent's node run
   * (so the node run again goes on with it): present when the parent has a store.
   */
  durable?: DurableChild | undefined;
}

/** How a child that could pause is kept and goes on: its store, its derived id, and its answers. */
export interface DurableChild {
  /** The parent's store: the child's runs are kept there unless its definition has a store. */
  store: Store | undefined;
  /** The id the child is kept under unless the step gives one. */
  executionId: string;
  /** The answers the parent was resumed with for the child run `executionId`, if any. */
  answersFor(executionId: string): HumanAnswers | undefined;
  /** What the child run `executionId` waited for when the parent paused on it, if it did. */
  waitedFor(executionId: string): CrewPending[] | undefined;
}

/**
 * Where a child runs as one item of a map step: under the step run's actor, under an id of its own
 * (`<parent id>/<node id>/<itemId>`), in the parent's store, to its end (it never pauses).
 */
export interface ChildItemScope {
  parent: AnyActorRef;
  signal: AbortSignal;
  clock: ClockOption;
  inputs: Record<string, unknown>;
  /** The item's run id: a run its store holds under it goes on rather than starting over. */
  executionId: string;
  /** The parent run's store (a definition with a store of its own is kept there instead). */
  store: Store | undefined;
  /** Hears each of the child's events. */
  relay(event: StatecrewEvent): void;
}

/** What a run's node can start as its child (a `Crew` is one). */
export interface ChildDefinition<O> {
  readonly name: string;
  /**
   * Runs as the child of a node: resolves with its output; rejects with {@link ChildWaits} when it
   * paused for a human (the node then waits, and the parent with it).
   */
  runAsChild(scope: ChildRunScope): Promise<O>;
  /**
   * Runs as an item of a map step, kept under the item's id: a run stored under it goes on (a
   * completed one gives its output without any work). Without it a map step runs `runAsChild`.
   */
  runAsItem?(scope: ChildItemScope): Promise<O>;
  /** Why a run of it could pause for a human, in words; undefined when none could (a map refuses those). */
  pausesFor?(): string | undefined;
}

/**
 * Thrown by a child run that paused for a human: not a failure of the node that started it, which
 * waits until the child's answers come (in a resume of the parent).
 */
export class ChildWaits extends Error {
  constructor(
    readonly child: string,
    readonly executionId: string,
    readonly pending: readonly CrewPending[],
  ) {
    super(`Crew "${child}" run "${executionId}" waits for a human`);
    this.name = 'ChildWaits';
  }
}
