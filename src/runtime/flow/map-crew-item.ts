import { CarriedFailure } from '../../actors/failure.js';
import type { CrewOutput, Failure, StatecrewEvent } from '../../types.js';
import type { ChildCrew } from '../crew/crew-child.js';
import type { CrewRun } from '../crew/run-options.js';
import type { ChildDefinition } from '../run/child-run.js';
import type { MapItem } from './map-items.js';
import type { StepScope } from './step-context.js';

/**
 * Which of a child's events a map step passes on into its run's (tagged with the step): the child's
 * `run.*` events and its failed nodes. A map of 10,000 crews would otherwise keep some 15 events per
 * item; the items' own progress is the step's `flow.item` events.
 */
export function relaysChildEvent(event: StatecrewEvent): boolean {
  return event.type.startsWith('run.') || event.type === 'node.failed';
}

/** Whether a child definition is a crew that runs, and goes on, in a store (a `Crew`). */
function isChildCrew(crew: ChildDefinition<CrewOutput>): crew is ChildDefinition<CrewOutput> & ChildCrew {
  const candidate = crew as Partial<ChildCrew>;
  return typeof candidate.run === 'function' && typeof candidate.resume === 'function';
}

/**
 * One attempt of a crew item: the crew's run `item.childId` under the step run's actor, on the run's
 * clock and `signal`, kept in the crew's store, else the parent run's. A run the store holds already
 * goes on (`crew.resume`): a completed one gives its result without a model call, one whose process
 * died or that failed runs its unfinished tasks (a retry of a failed item is such a resume, so its
 * completed tasks are not run again). A crew run that failed fails the attempt with its first task's
 * failure (retryable as that failure is).
 */
export async function runCrewItem(
  crew: ChildDefinition<CrewOutput>,
  item: MapItem,
  inputs: Record<string, unknown>,
  scope: StepScope,
  signal: AbortSignal,
): Promise<CrewOutput> {
  const relay = (event: StatecrewEvent) => {
    if (relaysChildEvent(event)) scope.hub.relay(event, scope.step);
  };
  const base = { signal, parent: scope.self, clock: scope.clock };
  let out: CrewOutput;
  if (!isChildCrew(crew)) {
    out = await crew.runAsChild({ ...base, inputs, executionId: item.childId, relay, completed: () => {} });
  } else {
    const store = crew.store ?? scope.store;
    const onRun = (run: CrewRun) => run.events$.subscribe(relay);
    const head = store === undefined ? undefined : await store.readRun(item.childId);
    if (head === undefined) {
      const run = crew.run({ ...base, inputs, executionId: item.childId, store });
      onRun(run);
      out = await run.result;
    } else {
      out = await crew.resume(item.childId, { ...base, store, onRun });
    }
  }
  if (out.status === 'failed') throw new CarriedFailure(crewFailure(crew.name, item.childId, out));
  return out;
}

/** A failed crew run as one failure: its first failed task's, named. */
function crewFailure(crew: string, childId: string, out: CrewOutput): Failure {
  const [nodeId, first] = Object.entries(out.failures)[0] ?? [];
  const message = `Crew "${crew}" run ${childId} failed${nodeId === undefined ? '' : ` at task "${nodeId}"`}: ${
    first?.message ?? Object.values(out.errors)[0] ?? 'no task completed'
  }`;
  return {
    message,
    retryable: first?.retryable ?? false,
    ...(first?.code === undefined ? {} : { code: first.code }),
  };
}

/** A crew item's inputs: `inputs(item, index)`, else the item itself when a plain object, else `{ item }`. */
export function crewItemInputs(
  inputs: ((item: unknown, index: number) => Record<string, unknown>) | undefined,
  item: MapItem,
): Record<string, unknown> {
  if (inputs !== undefined) return inputs(item.item, item.index);
  const value = item.item;
  if (typeof value === 'object' && value !== null) {
    const proto = Object.getPrototypeOf(value);
    if (proto === Object.prototype || proto === null) return value as Record<string, unknown>;
  }
  return { item: value };
}
