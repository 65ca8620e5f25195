import { chooses, FAILED, failedStepOf, handledSteps, type StepShape } from './flow-shape.js';

/** A flow's choices by step, as `FlowPath.routes` names them: one label, or a list when it chose more than once. */
export type Choices = Record<string, string | string[]>;

/** What reading a run's emissions needs of its flow: each step by name, which choose, whose timeout says what. */
interface ChoiceSteps {
  byName: ReadonlyMap<string, StepShape>;
  choosers: ReadonlySet<string>;
  /** Each `onTimeout` label, with the choosing steps that emit it when they time out. */
  timeoutOwners: ReadonlyMap<string, readonly string[]>;
}

function choiceSteps(steps: readonly StepShape[]): ChoiceSteps {
  const handled = handledSteps(steps);
  const choosers = new Set(steps.filter((s) => chooses(s, handled)).map((s) => s.name));
  const timeoutOwners = new Map<string, string[]>();
  for (const step of steps) {
    if (step.onTimeout === undefined || !choosers.has(step.name)) continue;
    timeoutOwners.set(step.onTimeout, [...(timeoutOwners.get(step.onTimeout) ?? []), step.name]);
  }
  return { byName: new Map(steps.map((s) => [s.name, s])), choosers, timeoutOwners };
}

/** Adds `label` to `step`'s choices: a second choice turns the label into a list. */
function choose(choices: Choices, step: string, label: string): void {
  const seen = choices[step];
  choices[step] = seen === undefined ? label : [...(Array.isArray(seen) ? seen : [seen]), label];
}

/**
 * The step that emitted timeout label `label`: of the steps whose `onTimeout` it is, the first that
 * completed more often than choices of it were read so far (else the first of them).
 */
function timeoutOwner(
  owners: readonly string[],
  trail: readonly string[],
  choices: Choices,
): string | undefined {
  const chosen = (step: string) => [choices[step] ?? []].flat().length;
  const runs = (step: string) => trail.filter((name) => name === step).length;
  return owners.find((step) => runs(step) > chosen(step)) ?? owners[0];
}

/**
 * The choices a run made, read from what it emitted, named as `FlowPath.routes` names them: a
 * router's or human's label (emitted after its name), a wait's name or its `onTimeout` label,
 * `failed` for a handled failure (`failed(step)` emitted) and a plain step's name when its failure
 * is handled but it completed.
 */
export function choicesIn(
  steps: readonly StepShape[],
  emitted: readonly string[],
  trail: readonly string[],
): Choices {
  const { byName, choosers, timeoutOwners } = choiceSteps(steps);
  const choices: Choices = {};
  for (let i = 0; i < emitted.length; i += 1) {
    const name = emitted[i] as string;
    const failedStep = failedStepOf(name);
    if (failedStep !== undefined) {
      if (choosers.has(failedStep)) choose(choices, failedStep, FAILED);
      continue;
    }
    const step = byName.get(name);
    if (step !== undefined && choosers.has(name)) {
      const next = emitted[i + 1];
      const routed = step.kind === 'router' || step.kind === 'human';
      if (!routed) choose(choices, name, name);
      else if (next !== undefined && step.routes?.includes(next) === true) {
        choose(choices, name, next);
        i += 1;
      }
      continue;
    }
    const owners = timeoutOwners.get(name);
    const owner = owners === undefined ? undefined : timeoutOwner(owners, trail, choices);
    if (owner !== undefined) choose(choices, owner, name);
  }
  return choices;
}

/** The steps a run's emissions say failed: each `failed(step)` name, once. */
export function failuresIn(emitted: readonly string[]): string[] {
  const failed = emitted.map(failedStepOf).filter((step) => step !== undefined);
  return [...new Set(failed)];
}
