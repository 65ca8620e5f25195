import { InvalidOptionError } from '../../errors.js';

/** Whether a run's `events` option keeps its events: `'store'` yes, undefined no, else `invalid_option`. */
export function keepsEventsOption(where: string, events: unknown): boolean {
  if (events !== undefined && events !== 'store')
    throw new InvalidOptionError(where, 'events', "'store' (keep the run's events in its store)", events);
  return events === 'store';
}
