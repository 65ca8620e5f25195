import type { Crew } from './crew/crew.js';
import type { Flow } from './flow/flow.js';

/** A crew, from any copy of statecrew loaded beside this one (a user's module may load another one). */
export function isCrew(value: unknown): value is Crew {
  const crew = value as Partial<Crew> | null;
  return (
    typeof crew === 'object' &&
    crew !== null &&
    typeof crew.run === 'function' &&
    typeof crew.resume === 'function' &&
    Array.isArray(crew.tasks)
  );
}

/** A flow, from any copy of statecrew loaded beside this one. */
export function isFlow(value: unknown): value is Flow<object> {
  const flow = value as Partial<Flow<object>> | null;
  return (
    typeof flow === 'object' &&
    flow !== null &&
    typeof flow.run === 'function' &&
    typeof flow.getRun === 'function' &&
    typeof flow.analyze === 'function'
  );
}
