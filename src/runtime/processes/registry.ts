import type { CrewProcess } from '../process.js';
import { graphProcess } from './graph.js';
import { hierarchicalProcess } from './hierarchical.js';
import { loopProcess } from './loop.js';
import { parallelProcess } from './parallel.js';
import { sequentialProcess } from './sequential.js';

/** Every process a crew can run with, by name: the one place a new process is added. */
export const processes = {
  sequential: sequentialProcess,
  hierarchical: hierarchicalProcess,
  parallel: parallelProcess,
  graph: graphProcess,
  loop: loopProcess,
} as const satisfies Record<string, CrewProcess>;

/** The names of the processes a crew can run with. */
export type ProcessKind = keyof typeof processes;
