import { InvalidOptionError, InvalidStateError } from '../../errors.js';
import type { JsonValue } from '../../stores/store.js';
import { encodeAt } from '../durable/codec.js';
import type { StateSource, StepDefinition } from './definition.js';
import type { StoredStepRun } from './flow-store.js';

/** The kinds of step whose output chose the path the run took after it. */
const DECIDING = new Set(['router', 'human', 'wait']);

/** What the edits of a fork read: the flow, the kept step runs, and the round of the checkpoint. */
export interface ForkScope {
  where: string;
  steps: readonly StepDefinition<unknown>[];
  /** The kept step runs, in commit order. */
  kept: readonly StoredStepRun[];
  /** The source's step runs after the checkpoint (an output for one of them is refused). */
  after: readonly StoredStepRun[];
  /** The round the checkpoint ran in. */
  round: number;
  checkpoint: string;
}

/**
 * The kept step runs with `outputs` applied (by node id, or step name: its latest kept run), each in
 * its stored form; a human or wait step given a new output no longer counts as timed out.
 * `invalid_option` for an output naming no kept run, one a store cannot keep, a router's label or a
 * human's route outside its routes, and a router, human or wait step of an earlier round than the
 * checkpoint's (the path it chose was taken already: fork at it).
 */
export function editOutputs(scope: ForkScope, outputs: Record<string, unknown> | undefined): StoredStepRun[] {
  const kept = scope.kept.map((s) => ({ ...s }));
  if (outputs === undefined) return kept;
  if (typeof outputs !== 'object' || outputs === null || Array.isArray(outputs)) {
    throw new InvalidOptionError(scope.where, 'outputs', 'an object of outputs by node id', outputs);
  }
  for (const [key, given] of Object.entries(outputs)) {
    const index = keptIndex(scope, kept, key);
    const run = kept[index] as StoredStepRun;
    const step = scope.steps.find((s) => s.name === run.step);
    if (step !== undefined && DECIDING.has(step.kind) && run.round < scope.round) {
      const why = `${step.kind} step run "${run.nodeId}" chose its path in round ${run.round}, before the checkpoint's round ${scope.round}: fork at "${run.nodeId}" to change it`;
      throw new InvalidOptionError(
        scope.where,
        `outputs.${key}`,
        'an output that changes no path taken',
        given,
        {
          message: `${scope.where}: option "outputs.${key}" cannot change: ${why}`,
        },
      );
    }
    const value = step === undefined ? given : outputOf(scope.where, key, step, given);
    const output = encodeAt(
      value,
      `outputs.${key}`,
      (path, reason) =>
        new InvalidOptionError(scope.where, path, `a value a store can keep (${reason})`, given),
    );
    const { timedOut: _timedOut, ...rest } = run;
    kept[index] = { ...rest, output };
  }
  return kept;
}

/** Where the kept run `key` names (a node id, else a step's latest kept run) is; `invalid_option` when none. */
function keptIndex(scope: ForkScope, kept: readonly StoredStepRun[], key: string): number {
  const byNode = kept.findIndex((s) => s.nodeId === key);
  if (byNode >= 0) return byNode;
  const byStep = kept.findLastIndex((s) => s.step === key);
  if (byStep >= 0) return byStep;
  const later = scope.after.some((s) => s.nodeId === key || s.step === key);
  const why = later
    ? `"${key}" ran after checkpoint "${scope.checkpoint}": fork at it (or later) to edit its output`
    : `no kept step run is "${key}"; the kept ones are ${kept.map((s) => s.nodeId).join(', ')}`;
  throw new InvalidOptionError(scope.where, `outputs.${key}`, 'a kept step run', key, {
    message: `${scope.where}: option "outputs.${key}" names no step run the fork keeps: ${why}`,
  });
}

/**
 * A new output of `step` as its run would have made it: a router's label (one of its routes); a human
 * step's `{ route, feedback }` (a route label alone is `{ route, feedback: undefined }`); anything
 * for other steps.
 */
function outputOf(where: string, key: string, step: StepDefinition<unknown>, given: unknown): unknown {
  const routes = [...(step.routes ?? []), ...(step.onTimeout === undefined ? [] : [step.onTimeout])];
  const expected = `one of ${routes.map((r) => `"${r}"`).join(', ')}`;
  if (step.kind === 'router') {
    if (typeof given !== 'string' || !routes.includes(given)) {
      throw new InvalidOptionError(
        where,
        `outputs.${key}`,
        `a route of router "${step.name}": ${expected}`,
        given,
      );
    }
    return given;
  }
  if (step.kind !== 'human') return given;
  const answer = typeof given === 'string' ? { route: given } : (given as { route?: unknown } | null);
  const route = typeof answer === 'object' && answer !== null ? answer.route : undefined;
  if (typeof route !== 'string' || !routes.includes(route)) {
    const what = `a route label or { route, feedback? } of human step "${step.name}", route ${expected}`;
    throw new InvalidOptionError(where, `outputs.${key}`, what, given);
  }
  const { feedback } = answer as { feedback?: unknown };
  return { route, feedback };
}

/** A fork's state: the checkpoint's, changed by `edit`, with `inputs` merged over it and the new run's id. */
export function editState(
  where: string,
  base: Record<string, unknown>,
  edit: Record<string, unknown> | ((state: unknown) => unknown) | undefined,
  inputs: Record<string, unknown>,
  id: string,
): Record<string, unknown> {
  let state: unknown = structuredClone(base);
  if (typeof edit === 'function') state = edit(state);
  else if (edit !== undefined) {
    if (typeof edit !== 'object' || edit === null || Array.isArray(edit)) {
      throw new InvalidOptionError(where, 'state', 'an object to merge, or a function of the state', edit);
    }
    state = { ...(state as Record<string, unknown>), ...edit };
  }
  if (typeof state !== 'object' || state === null || Array.isArray(state)) {
    throw new InvalidOptionError(where, 'state', 'a function that returns the new state (an object)', state);
  }
  const { id: _id, ...merged } = { ...(state as Record<string, unknown>), ...inputs };
  return { ...merged, id };
}

/** Checks a fork's state like a step's (`invalid_state`: the schema's issues, or a value no store keeps); its stored form. */
export function checkForkState(
  where: string,
  source: StateSource<unknown>,
  state: Record<string, unknown>,
): JsonValue {
  const label = `${where} (the edited state)`;
  if (source.kind === 'schema') {
    const parsed = source.schema.safeParse(state);
    if (!parsed.success) {
      const issues = parsed.error.issues;
      const listed = issues.map((i) => `${i.path.join('.') || '(the state)'}: ${i.message}`).join('; ');
      throw new InvalidStateError(label, issues, `${where}: the edited state is invalid: ${listed}`);
    }
  }
  return encodeAt(state, 'state', (path, reason) => InvalidStateError.unstorable(label, path, reason));
}
