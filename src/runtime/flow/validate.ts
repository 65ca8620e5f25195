import { NoStartError, UnknownTriggerError } from '../../errors.js';
import type { StepShape } from '../../machines/flow/step-shape.js';
import { failed, namesIn } from '../../machines/flow/triggers.js';

/**
 * Checks what can only be checked once the whole flow is defined (triggers may name steps and routes
 * declared later): every trigger names a step, a declared route or timeout label, or `failed(step)` of
 * a step (`unknown_trigger`), and
 * some step starts the flow (`no_start`).
 */
export function validateTriggers(definition: { name: string; steps: readonly StepShape[] }): void {
  const known = new Set<string>();
  for (const step of definition.steps) {
    known.add(step.name);
    known.add(failed(step.name));
    for (const label of step.routes ?? []) known.add(label);
    if (step.onTimeout !== undefined) known.add(step.onTimeout);
  }
  for (const step of definition.steps) {
    if (step.trigger === undefined) continue;
    for (const name of namesIn(step.trigger)) {
      if (!known.has(name)) throw new UnknownTriggerError(definition.name, step.name, name);
    }
  }
  if (!definition.steps.some((s) => s.kind === 'start')) throw new NoStartError(definition.name);
}
