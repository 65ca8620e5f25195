import { InternalError } from '../../errors.js';
import type { MapItemResult } from '../../types.js';
import type { MapSettings } from './compose-options.js';
import type { StepContext } from './definition.js';

/**
 * The body of a map step: runs each item of `settings.items(context)` as a child run, at most
 * `concurrency` at once, and resolves with their results in item order.
 */
export async function runMapStep(
  _context: StepContext<unknown>,
  _settings: MapSettings,
): Promise<MapItemResult[]> {
  throw new InternalError('runMapStep', 'map steps are not built yet');
}
