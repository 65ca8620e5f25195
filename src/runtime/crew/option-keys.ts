import { InvalidOptionError } from '../../errors.js';
import type { FlowResumeOptions, FreeFlowOptions, StructuredFlowOptions } from '../flow/flow.js';
import type { FlowRunOptions } from '../flow/flow-run.js';
import type { AgentOptions } from './agent.js';
import type { CrewOptions, CrewResumeOptions, ReplayOptions } from './crew.js';
import type { KickoffForEachOptions } from './crew-for-each.js';
import type { RunOptions } from './crew-run.js';
import type { TaskOptions } from './task.js';

/**
 * The options each public constructor and run method knows, so a key it does not know — a typo
 * (`proces`), a CrewAI spelling (`expected_output`), a wrong name (`input`) — is refused at once
 * instead of silently ignored. Each list is checked against its options type by the compiler: an
 * option added to the type and not here does not compile.
 */
type Known<T> = Readonly<Record<keyof T, true>>;

/** `new Crew(options)`. */
export const CREW_OPTIONS = {
  tasks: true,
  agents: true,
  process: true,
  manager: true,
  goal: true,
  maxConcurrency: true,
  loop: true,
  name: true,
  store: true,
  leaseMs: true,
  onStoreError: true,
  budget: true,
  prices: true,
  summarize: true,
  executor: true,
  memory: true,
  maxDelegationDepth: true,
  strictInputs: true,
  baseDir: true,
  allowOutsideFiles: true,
} as const satisfies Known<Required<CrewOptions>>;

/** `new Task(options)`. */
export const TASK_OPTIONS = {
  name: true,
  description: true,
  expectedOutput: true,
  agent: true,
  context: true,
  outputSchema: true,
  guardrail: true,
  maxRetries: true,
  retryDelayMs: true,
  timeoutMs: true,
  tools: true,
  humanInput: true,
  markdown: true,
  outputFile: true,
  asyncExecution: true,
} as const satisfies Known<Required<TaskOptions>>;

/** `new Agent(options)`. */
export const AGENT_OPTIONS = {
  role: true,
  goal: true,
  backstory: true,
  llm: true,
  tools: true,
  maxIter: true,
  maxRetries: true,
  retryDelayMs: true,
  timeoutMs: true,
  stream: true,
  maxRpm: true,
  temperature: true,
  maxOutputTokens: true,
  allowDelegation: true,
  memory: true,
} as const satisfies Known<Required<AgentOptions>>;

/** `crew.kickoff(options)`. */
export const CREW_RUN_OPTIONS = {
  inputs: true,
  strictInputs: true,
  signal: true,
  inspect: true,
  executionId: true,
  clock: true,
  parent: true,
  budget: true,
  stream: true,
  prices: true,
  store: true,
  leaseMs: true,
  onStoreError: true,
  events: true,
} as const satisfies Known<Required<RunOptions>>;

const {
  inputs: _eachInputs,
  executionId: _eachId,
  parent: _eachParent,
  ...SHARED_RUN_OPTIONS
} = CREW_RUN_OPTIONS;

/** `crew.kickoffForEach(list, options)`: a kickoff's options but `inputs`, `executionId` and `parent`; `concurrency`, `onRun`. */
export const CREW_FOR_EACH_OPTIONS = {
  ...SHARED_RUN_OPTIONS,
  concurrency: true,
  onRun: true,
} as const satisfies Known<Required<KickoffForEachOptions>>;

/** `crew.replay(id, options)`. */
export const CREW_REPLAY_OPTIONS = {
  ...CREW_RUN_OPTIONS,
  fromTask: true,
} as const satisfies Known<Required<ReplayOptions>>;

const { executionId: _resumedId, ...RESUMED_RUN_OPTIONS } = CREW_RUN_OPTIONS;

/** `crew.resume(id, options)`: a kickoff's options but the id, and `onRun`. */
export const CREW_RESUME_OPTIONS = {
  ...RESUMED_RUN_OPTIONS,
  onRun: true,
  approvals: true,
  reviews: true,
} as const satisfies Known<Required<CrewResumeOptions>>;

/** `createFlow(options)`, either form. */
export const FLOW_OPTIONS = {
  name: true,
  initialState: true,
  state: true,
  store: true,
  leaseMs: true,
  clock: true,
} as const satisfies Known<Required<FreeFlowOptions<object> & StructuredFlowOptions<never>>>;

/** `flow.kickoff(options)`. */
export const FLOW_RUN_OPTIONS = {
  inputs: true,
  signal: true,
  inspect: true,
  clock: true,
  routes: true,
  store: true,
  from: true,
  leaseMs: true,
  events: true,
} as const satisfies Known<Required<FlowRunOptions>>;

const { inputs: _inputs, from: _from, ...RESUMED_FLOW_OPTIONS } = FLOW_RUN_OPTIONS;

/** `flow.resume(id, answer, options)`: a kickoff's options but `inputs` and `from`, and `onRun`. */
export const FLOW_RESUME_OPTIONS = {
  ...RESUMED_FLOW_OPTIONS,
  onRun: true,
} as const satisfies Known<Required<FlowResumeOptions<object>>>;

/**
 * Refuses a key of `options` that `known` does not hold: `invalid_option` naming it, and the known
 * key closest to it. Keys whose value is `undefined` are checked too: a misspelt key is wrong
 * whatever its value.
 */
export function checkOptionKeys(
  where: string,
  options: unknown,
  known: Readonly<Record<string, true>>,
): void {
  if (typeof options !== 'object' || options === null) return;
  for (const key of Object.keys(options)) {
    if (Object.hasOwn(known, key)) continue;
    const names = Object.keys(known);
    throw InvalidOptionError.unknown(where, key, names, closestName(key, names));
  }
}

/** A name as people misspell it: case, `_` and `-` do not count (`expected_output` is `expectedOutput`). */
const loose = (name: string) => name.toLowerCase().replaceAll(/[_-]/g, '');

/**
 * The name of `names` closest to `wanted` by edit distance (ignoring case, `_` and `-`), if it is
 * close enough to be what was meant: at most a third of its length away, and never more than 3.
 */
export function closestName(wanted: string, names: readonly string[]): string | undefined {
  const target = loose(wanted);
  let best: { name: string; distance: number } | undefined;
  for (const name of names) {
    const distance = editDistance(target, loose(name));
    if (best === undefined || distance < best.distance) best = { name, distance };
  }
  const allowed = Math.min(3, Math.max(1, Math.floor(target.length / 3)));
  return best !== undefined && best.distance <= allowed ? best.name : undefined;
}

/** The Levenshtein distance of `a` and `b`: the fewest insertions, deletions and substitutions. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      const substitution = (previous[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current[j] = Math.min((previous[j] as number) + 1, (current[j - 1] as number) + 1, substitution);
    }
    previous = current;
  }
  return previous[b.length] as number;
}
