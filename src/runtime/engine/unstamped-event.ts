import type { StatecrewEvent } from '../../types.js';

type WithoutStamp<E> = E extends unknown ? Omit<E, 'runId' | 'at'> : never;

/** An event before the run stamps it with its id and time. */
export type UnstampedEvent = WithoutStamp<StatecrewEvent>;
