import { type PendingStep, stepRunOf } from '../machines/flow/waits.js';
import type { StepDetails } from '../runtime/flow/definition.js';
import type { FlowSnapshot } from '../runtime/flow/snapshot.js';
import type { StatecrewEvent } from '../types.js';
import type { FlowViewSource } from './flow-runs.js';
import { isMapOutput } from './map-runs.js';

/**
 * What kind each step of a stored flow run was, as far as the run itself says — never guessed from
 * a name: a step it paused for (a human step, a wait for an outside event), a router that chose a
 * route, a human step that was answered, a sleep step that slept, a map step's items, a child flow's
 * relayed steps.
 */
export type StepKinds = Map<string, StepDetails['kind']>;

/** A step's kind from what it paused for (a crew step inside pauses as a plain step). */
const PAUSED: Readonly<Record<PendingStep['kind'], StepDetails['kind']>> = {
  human: 'human',
  event: 'wait',
  crew: 'listen',
  flow: 'flow',
};

/** The kinds a run's events tell: pauses, routes chosen, answers, signals, sleeps. */
function eventKinds(events: readonly StatecrewEvent[], kinds: StepKinds): void {
  for (const event of events) {
    if (event.type === 'flow.paused')
      for (const waiting of event.waitingFor ?? []) kinds.set(waiting.step, PAUSED[waiting.kind]);
    if (event.type === 'flow.route') kinds.set(event.router, 'router');
    if (event.type === 'flow.resumed') kinds.set(event.step, 'human');
    if (event.type === 'flow.signaled') kinds.set(event.step, 'wait');
    if (event.type === 'flow.sleeping') kinds.set(event.step, 'sleep');
    if (event.type === 'flow.item') kinds.set(event.step, 'map');
    // A child flow's step events come relayed, tagged with the parent's step (a map's items' too).
    if (event.type === 'flow.step' && event.step !== undefined && kinds.get(event.step) !== 'map')
      kinds.set(event.step, 'flow');
  }
}

/**
 * The kinds a snapshot tells: its sleeps, its map steps (by their outputs), and each completed round's routes — a name the round emitted
 * right after a step's own that is no step's name is the route that step chose: a router's when it is
 * the step's output, a human step's when it is the answer's `route`.
 */
function snapshotKinds(snapshot: FlowSnapshot, kinds: StepKinds): void {
  for (const nodeId of Object.keys(snapshot.sleeps ?? {})) kinds.set(stepRunOf(nodeId).step, 'sleep');
  // A run that kept no events tells its map steps by their outputs: their items' results.
  for (const [step, output] of Object.entries(snapshot.outputs))
    if (isMapOutput(output)) kinds.set(step, 'map');
  const steps = new Set([...snapshot.trail, ...snapshot.rounds.flatMap((r) => r.steps)]);
  for (const round of snapshot.rounds) {
    for (const [at, step] of round.emitted.entries()) {
      const label = round.emitted[at + 1];
      if (!round.steps.includes(step) || label === undefined || steps.has(label)) continue;
      const output = snapshot.outputs[step];
      if (output === label) kinds.set(step, 'router');
      else if ((output as { route?: unknown } | null | undefined)?.route === label) kinds.set(step, 'human');
    }
  }
}

/** The kinds of a stored flow run's steps its source tells (the steps it waits for last: they are sure). */
export function storedStepKinds(source: FlowViewSource): StepKinds {
  const kinds: StepKinds = new Map();
  if ('version' in source) snapshotKinds(source, kinds);
  if ('events' in source) eventKinds(source.events ?? [], kinds);
  const pending = 'version' in source ? source.pending : 'waiting' in source ? (source.waiting ?? []) : [];
  for (const waiting of pending) kinds.set(waiting.step, PAUSED[waiting.kind]);
  return kinds;
}
