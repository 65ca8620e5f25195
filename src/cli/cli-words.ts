import { describeMissingInputs } from '../errors.js';
import type { MissingInput, StatecrewEvent } from '../types.js';

/** `--input name=…` for each placeholder no input fills. */
const inputFlags = (missing: readonly MissingInput[]) => missing.map((m) => `--input ${m.name}=…`).join(' ');

/**
 * Why `statecrew run` refused a crew whose placeholders no input fills, in the command's own terms:
 * `statecrew: Crew "research": no input fills {topic} in …: give it with --input topic=…, or run with
 * --allow-missing-inputs to send the braces as written (missing_input)`.
 */
export function missingInputRefusal(crew: string, missing: readonly MissingInput[]): string {
  return `statecrew: Crew "${crew}": no input fills ${describeMissingInputs(missing)}: give it with ${inputFlags(missing)}, or run with --allow-missing-inputs to send the braces as written (missing_input)\n`;
}

/** A run's `run.warning` as the CLI prints it: missing inputs in the command's own terms. */
export function warningLine(event: Extract<StatecrewEvent, { type: 'run.warning' }>): string {
  return event.code === 'missing_input'
    ? missingInputWarning(event.details.missingInputs)
    : `warning: ${event.message} (${event.code})`;
}

/** The `run.warning` of a crew run with `--allow-missing-inputs`, in the command's own terms. */
export function missingInputWarning(missing: readonly MissingInput[]): string {
  return `warning: No input fills ${describeMissingInputs(missing)}: sent to the model as written (give it with ${inputFlags(missing)}; without --allow-missing-inputs such a run is refused) (missing_input)`;
}
