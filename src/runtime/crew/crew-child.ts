import type { CrewOutput } from '../../types.js';
import { type ChildRunScope, ChildWaits, type DurableChild } from '../run/child-run.js';
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
