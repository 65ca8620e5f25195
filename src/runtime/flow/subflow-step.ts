import { InternalError } from '../../errors.js';
import type { ComposableFlow } from './child-flow.js';
import type { StepContext } from './definition.js';

/** The body of a flow step: runs `child` as the step run's child flow; resolves with its output. */
export async function runSubflowStep(
  _context: StepContext<unknown>,
  _child: ComposableFlow,
  _inputs: ((context: StepContext<unknown>) => Record<string, unknown>) | undefined,
): Promise<unknown> {
  throw new InternalError('runSubflowStep', 'flow steps are not built yet');
}
