import type { CrewOutput } from '../../types.js';
import { type ChildItemScope, type ChildRunScope, ChildWaits, type DurableChild } from '../run/child-run.js';
import { type FactSource, factsOf } from './crew-facts.js';
import { crewCouldPause } from './crew-pause.js';
import { storedPending } from './crew-resume.js';
import { memoryEntry } from './memory.js';
import type { CrewResumeOptions, CrewRun, RunOptions } from './run-options.js';
import type { RunnableCrew } from './runnable-crew.js';
import { SUMMARY_NODE } from './summary.js';

/** What running as a child needs of a crew: its run, its resume, and what could make it pause. */
export interface ChildCrew extends RunnableCrew {
  run(options: RunOptions): CrewRun;
  resume(executionId: string, options: CrewResumeOptions): Promise<CrewOutput>;
}

/**
 * Runs `crew` as the child of another run's node (a flow step's `kickoff`): under the node's actor,
 * its events relayed, each completed task handed to the parent's execution memory. A crew that could
 * pause for a human, in a parent with a store, is kept under an id derived from the node run, so that
 * the node run again goes on with that run instead of starting another — with the answers the parent
 * was resumed with. A run that pauses (again) rejects with {@link ChildWaits}: the node waits.
 */
export async function runCrewAsChild(crew: ChildCrew, scope: ChildRunScope): Promise<CrewOutput> {
  const relay = (run: CrewRun) =>
    run.events$.subscribe((event) => {
      if (event.type === 'node.completed' && event.nodeId !== SUMMARY_NODE) {
        scope.completed(memoryEntry(event.nodeId, event.output));
      }
      scope.relay(event);
    });
  const { signal, parent, clock, inputs, executionId } = scope;
  const options: RunOptions = { inputs, executionId, signal, parent, clock };
  if (scope.durable === undefined || !crewCouldPause(crew)) {
    const run = crew.run(options);
    relay(run);
    return run.result;
  }
  return runDurably(crew, options, scope.durable, relay);
}

/** A child that could pause: kept, and gone on with, under its derived id. */
async function runDurably(
  crew: ChildCrew,
  options: RunOptions,
  durable: DurableChild,
  relay: (run: CrewRun) => void,
): Promise<CrewOutput> {
  const store = crew.store ?? durable.store;
  const executionId = options.executionId ?? durable.executionId;
  const head = store === undefined ? undefined : await store.readRun(executionId);
  let out: CrewOutput;
  if (head === undefined || store === undefined) {
    const run = crew.run({ ...options, executionId, store });
    relay(run);
    out = await run.result;
  } else {
    const answers = durable.answersFor(executionId);
    if (head.status === 'paused' && answers === undefined) {
      const pending = durable.waitedFor(executionId) ?? (await storedPending(store, executionId));
      throw new ChildWaits(crew.name, executionId, pending);
    }
    const { executionId: _id, inputs: _inputs, ...rest } = options;
    // A crew run answered meanwhile (by crew.resume) goes on, or gives its result, without them.
    const given = answers === undefined || head.status !== 'paused' ? {} : answers;
    out = await crew.resume(executionId, { ...rest, store, ...given, onRun: relay });
  }
  if (out.status === 'paused') throw new ChildWaits(crew.name, executionId, out.pending ?? []);
  return out;
}

/**
 * Runs `crew` as an item of a map step (see {@link ChildItemScope}): a run its store (the crew's, else
 * the parent's) holds under the item's id goes on with `crew.resume` — a completed one gives its
 * result without a model call; one whose process died, or that failed (a retry of the item), runs
 * only its unfinished tasks — else a new run starts under that id.
 */
export async function runCrewAsItem(crew: ChildCrew, scope: ChildItemScope): Promise<CrewOutput> {
  const { parent, signal, clock, inputs, executionId, relay } = scope;
  const store = crew.store ?? scope.store;
  const onRun = (run: CrewRun) => {
    run.events$.subscribe(relay);
  };
  const head = store === undefined ? undefined : await store.readRun(executionId);
  if (head !== undefined) return crew.resume(executionId, { parent, signal, clock, store, onRun });
  const run = crew.run({ parent, signal, clock, inputs, executionId, store });
  onRun(run);
  return run.result;
}

/** Why runs of `crew` could pause for a human, in words; undefined when none could. */
export function crewPausesFor(crew: FactSource): string | undefined {
  const reason = factsOf(crew).pauseReason;
  if (reason === undefined) return undefined;
  return reason.kind === 'review'
    ? `its task "${reason.nodeId}" waits for a human's review (humanInput)`
    : `its tool "${reason.tool.name}" may wait for approval`;
}
