import { getAdjacencyMap } from '@xstate/graph';
import type { AnyMachineSnapshot, AnyStateMachine, EventObject } from 'xstate';
import { InternalError } from '../../errors.js';
import { createPlainMachine, type PlainMachine, type PlainStateConfig } from '../engine/plain-machine.js';
import type { CrewPath } from './crew-picture.js';

/** One thing that can happen to a supervisor in some snapshot: the event it hears and the picture's name for it. */
export interface PictureMove {
  label: string;
  event: EventObject;
}

/**
 * How to walk one crew supervisor — the machine that runs, not a drawing of it: its logic, an input
 * whose effects never run (`@xstate/graph` executes no actions), what can happen in a snapshot (a
 * task completes or fails for good, an advisor answers), and what the picture calls a snapshot.
 * Retries, crashes and `ABORT` are left out: a retry returns to the same picture state, a crash is a
 * bug, an abort comes from outside.
 */
export interface SupervisorWalk {
  /** The picture's id (the process kind). */
  id: string;
  logic: AnyStateMachine;
  input: unknown;
  moves(snapshot: AnyMachineSnapshot): PictureMove[];
  /** The picture's state for `snapshot`: a final snapshot must be named `completed` or `failed`. */
  name(snapshot: AnyMachineSnapshot): string;
  /** What the picture says a state does, if anything. */
  describe?(snapshot: AnyMachineSnapshot): string | undefined;
}

/** Effects for a walked supervisor: `@xstate/graph` never runs actions, so any call is a defect. */
export function inertEffects<E extends object>(process: string): E {
  return new Proxy({} as E, {
    get(_target, key) {
      return () => {
        throw new InternalError('supervisorPicture', `A walked ${process} supervisor ran an effect`, {
          effect: String(key),
        });
      };
    },
  });
}

/**
 * A crew's control flow derived from its running supervisor: walks `walk.logic` with
 * `@xstate/graph` from its initial snapshot over `walk.moves`, and keeps one plain state per name
 * with an event per move. `crew.toMachine()`, `crew.analyze()` and the crew's paths all come from it,
 * so the machine that is proven is the machine that runs.
 */
export function supervisorPicture(walk: SupervisorWalk): PlainMachine {
  const labels = new WeakMap<EventObject, string>();
  const adjacency = getAdjacencyMap(walk.logic, {
    input: walk.input,
    events: (snapshot: AnyMachineSnapshot) =>
      walk.moves(snapshot).map(({ label, event }) => {
        labels.set(event, label);
        return event;
      }),
    serializeState: (snapshot: AnyMachineSnapshot) => walk.name(snapshot),
    serializeEvent: (event: EventObject) => labels.get(event) ?? event.type,
  });
  const states: Record<string, PlainStateConfig> = {};
  for (const [name, { state, transitions }] of Object.entries(adjacency)) {
    states[name] = pictureState(walk, name, state, transitions);
  }
  const initial = Object.keys(adjacency)[0] ?? 'completed';
  return createPlainMachine({ id: walk.id, initial, states });
}

function pictureState(
  walk: SupervisorWalk,
  name: string,
  snapshot: AnyMachineSnapshot,
  transitions: Record<string, { state: AnyMachineSnapshot }>,
): PlainStateConfig {
  if (snapshot.status === 'done') {
    if (name !== 'completed' && name !== 'failed')
      throw new InternalError('supervisorPicture', `A walked ${walk.id} supervisor ended in "${name}"`, {
        name,
      });
    return { type: 'final' };
  }
  const on = Object.fromEntries(
    Object.entries(transitions).map(([label, next]) => [label, walk.name(next.state)]),
  );
  const description = walk.describe?.(snapshot);
  return description === undefined ? { on } : { description, on };
}

/**
 * What can happen to the task `nodeId` a chain supervisor waits for: it completes (`SUCCEED`) or
 * fails for good (`FAIL`). The walk sends no task run (`run`): `stopChild` of nothing does nothing.
 */
export function settleMoves(nodeId: string): PictureMove[] {
  return [
    { label: 'SUCCEED', event: { type: 'NODE.COMPLETED', nodeId, run: undefined } as EventObject },
    {
      label: 'FAIL',
      event: { type: 'NODE.FAILED', nodeId, willRetry: false, run: undefined } as EventObject,
    },
  ];
}

/** An advisor's answer (a manager's allocation or synthesis, a judge's verdict) to the request numbered `attempt`. */
export function answerMove(label: string, attempt: number, output: string | undefined): PictureMove {
  const outcome =
    output === undefined
      ? { ok: false, error: { message: 'the advisor failed', retryable: false }, finishedAt: 0 }
      : { ok: true, output, finishedAt: 0 };
  return { label, event: { type: 'WORK.DONE', attempt, outcome } as EventObject };
}

/**
 * Every path of a flat, acyclic picture (as {@link supervisorPicture} draws a chain supervisor) from
 * its initial state to a final one: each way a run can end, once, grouped by the end it reaches.
 * Depth-first with an explicit stack, so a crew of thousands of tasks neither recurses nor walks
 * each path again per end state. A state already on the path is not entered again.
 */
export function picturePaths(picture: PlainMachine): CrewPath[] {
  const { initial, states } = picture.config as { initial: string; states: Record<string, PlainStateConfig> };
  const found: CrewPath[] = [];
  const onPath: string[] = [initial];
  const events: string[] = [];
  const moves: [string, string][][] = [Object.entries(states[initial]?.on ?? {})];
  if (states[initial]?.type === 'final') found.push(endOf(onPath, events));
  while (moves.length > 0) {
    const next = (moves.at(-1) as [string, string][]).shift();
    if (next === undefined) {
      moves.pop();
      onPath.pop();
      events.pop();
      continue;
    }
    const [event, target] = next;
    if (onPath.includes(target)) continue;
    onPath.push(target);
    events.push(event);
    if (states[target]?.type === 'final') found.push(endOf(onPath, events));
    moves.push(Object.entries(states[target]?.on ?? {}));
  }
  // Grouped by the end they reach, in the picture's order of states (as `@xstate/graph` lists them).
  const order = Object.keys(states);
  const rank = (path: CrewPath) => order.indexOf(path.states.at(-1) as string);
  return found.sort((a, b) => rank(a) - rank(b));
}

function endOf(states: readonly string[], events: readonly string[]): CrewPath {
  const outcome = states.at(-1) === 'failed' ? 'failed' : 'completed';
  return { states: [...states], events: [...events], outcome };
}
