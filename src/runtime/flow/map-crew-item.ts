import { CarriedFailure } from '../../actors/failure.js';
import type { CrewOutput, Failure, StatecrewEvent } from '../../types.js';
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

/**
 * One attempt of a crew item: the crew's run `item.childId` under the step run's actor, on the run's
 * clock and `signal`, in the parent run's store (see `runAsItem`: a stored run goes on, so a retry of
 * a failed item runs only its failed and unfinished tasks, and a completed one no model call). A
 * definition without `runAsItem` runs as a plain child. A crew run that failed fails the attempt with
 * its first task's failure (retryable as that failure is).
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
  const base = { signal, parent: scope.self, clock: scope.clock, inputs, executionId: item.childId, relay };
  const out =
    crew.runAsItem === undefined
      ? await crew.runAsChild({ ...base, completed: () => {} })
      : await crew.runAsItem({ ...base, store: scope.store });
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
