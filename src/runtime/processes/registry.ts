import type { CrewProcess, ProcessKind } from '../process.js';
import { hierarchicalProcess } from './hierarchical.js';
import { sequentialProcess } from './sequential.js';

/** Every process a crew can run with, by name. */
export const processes: Readonly<Record<ProcessKind, CrewProcess>> = {
  sequential: sequentialProcess,
  hierarchical: hierarchicalProcess,
};
