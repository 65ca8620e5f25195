import { InvalidOptionError } from '../../errors.js';
import type { MapRunKind, StepShape } from '../../machines/flow/step-shape.js';

/** What a flow item's pause check reads of a flow: its name and its steps' shapes. */
interface ShapedFlow {
  readonly name: string;
  readonly definition: { readonly steps: readonly StepShape[] };
}

/** The first step of a flow (or of a flow it runs as a step) that waits for a human or an event. */
function flowPause(steps: readonly StepShape[], path = ''): string | undefined {
  for (const step of steps) {
    const { name } = step;
    if (step.kind === 'human' || step.kind === 'wait') return `its ${step.kind} step "${path}${name}" waits`;
    if (step.kind === 'flow' && step.subflow !== undefined) {
      const inner = flowPause(step.subflow.steps, `${path}${name} › `);
      if (inner !== undefined) return inner;
    }
  }
  return undefined;
}

/**
 * Refuses, when a map step is built, items that could pause for a human — a crew with a task that
 * waits for review or a tool that waits for approval, a flow with a human or wait step (or a flow step
 * whose child has one) — (`invalid_option` naming the step and why): a map's items run to their end.
 */
export function refusePausableItems(where: string, run: unknown, runs: MapRunKind): void {
  if (runs === 'crew') {
    const why = (run as { pausesFor?: () => string | undefined }).pausesFor?.();
    if (why === undefined) return;
    throw new InvalidOptionError(where, 'run', 'a crew that runs to its end', run, {
      message: `${where}: a map step's items cannot pause for a human, and crew "${(run as { name: string }).name}" could: ${why}`,
    });
  }
  if (runs === 'flow') {
    const flow = run as ShapedFlow;
    const why = flowPause(flow.definition.steps);
    if (why === undefined) return;
    const message = `${where}: a map step's items cannot pause for a human, and flow "${flow.name}" could: ${why}`;
    throw new InvalidOptionError(where, 'run', 'a flow that runs to its end', flow.name, { message });
  }
}
