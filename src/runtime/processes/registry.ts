import type { CrewProcess, ProcessKind } from '../process.js';
import { graphProcess } from './graph.js';
import { hierarchicalProcess } from './hierarchical.js';
import { loopProcess } from './loop.js';
import { parallelProcess } from './parallel.js';
import { sequentialProcess } from './sequential.js';

/** Every process a crew can run with, by name. */
export const processes: Readonly<Record<ProcessKind, CrewProcess>> = {
  sequential: sequentialProcess,
  hierarchical: hierarchicalProcess,
  parallel: parallelProcess,
  graph: graphProcess,
  loop: loopProcess,
};
