/**
 * The shapes of an evaluation: a dataset's cases, scorers and what they return, and the report
 * `evaluate` gives — plain JSON, so a report written to a file or a store reads back the same.
 */

import type { Crew } from '../runtime/crew/crew.js';
import type { Budget } from '../runtime/engine/budget.js';
import type { Flow } from '../runtime/flow/flow.js';
import type { FlowOutput } from '../runtime/flow/flow-output.js';
import type { Store } from '../stores/store.js';
import type { CrewOutput, Usage } from '../types.js';

/** One row of a dataset: the run's inputs and, when known, what it should give. */
export interface EvalCase {
  /** What names the case in the report; its position in the dataset when absent. */
  id?: string;
  /** The run's inputs (a crew's `{placeholders}`, a flow's initial state fields). */
  inputs: Record<string, unknown>;
  /** What the run's output should be, for the scorers that compare (`exactMatch`, `similarity`, …). */
  expected?: unknown;
  /** What each task's (crew) or step's (flow) output should be, by its name: for per-node scorers. */
  expectedOutputs?: Record<string, unknown>;
}

/** A dataset: cases in memory, or a `.jsonl`, `.json`, `.yaml` or `.yml` file of them. */
export type Dataset = readonly EvalCase[] | string;

/** What one scorer says of one output: `score` from 0 (worst) to 1 (best). */
export interface Score {
  score: number;
  reason?: string;
  /** The score on the scorer's own scale, when it has one (a judge's 1–10). */
  value?: number;
  /** The scorer could not score (it threw, or a judge's reply held no score): `score` is 0. */
  error?: { code: string; message: string };
}

/** Which output a scorer scores: the run's, or each task's (crew) or step's (flow). */
export type ScoreLevel = 'run' | 'node';

/** What a scorer gets for one output. */
export interface ScoreInput {
  /** The output scored: the run's `output`, or one task's (its structured value, else raw) or step's. */
  output: unknown;
  /** The output as text (JSON for a value that is not text). */
  text: string;
  /** `case.expected` for a run's output; `case.expectedOutputs[node]` for a node's. */
  expected: unknown;
  inputs: Record<string, unknown>;
  /** The task's or step's name when scoring a node; undefined for the run. */
  node?: string;
  /** What the node was asked, when it is a crew's task: its description and expected output. */
  task?: { description: string; expectedOutput: string; agent: string };
  /** The run: a crew's result or a flow's. */
  run: { kind: 'crew'; result: CrewOutput } | { kind: 'flow'; result: FlowOutput<object> };
  /** Aborted when the evaluation is. */
  signal: AbortSignal;
  /**
   * Tells the evaluation what a model call the scorer made spent: counted in the case's usage (as
   * `judge`) and in the evaluation's budget. Throws `budget_exceeded` when that budget is spent —
   * call it (or `beforeCall`) before each call.
   */
  spend(usage: Usage): void;
  /** Throws `budget_exceeded` when the evaluation's budget is spent: call before a model call. */
  beforeCall(): void;
}

/** A scorer: a name, which outputs it scores, and how. */
export interface Scorer {
  readonly name: string;
  /** @default 'run' */
  readonly level?: ScoreLevel;
  /** Only these tasks or steps, when `level` is `node`. @default every completed one */
  readonly nodes?: readonly string[];
  score(input: ScoreInput): Score | Promise<Score>;
}

/** A scorer as `evaluate` takes it: a {@link Scorer}, or a function giving a number (0–1), a boolean or a {@link Score}. */
export type ScorerLike =
  | Scorer
  | ((input: ScoreInput) => number | boolean | Score | Promise<number | boolean | Score>);

/** What `evaluate` takes; `S` is a flow target's state (any flow is taken, whatever its state). */
export interface EvaluateOptions<S extends object = object> {
  target: Crew | Flow<S>;
  dataset: Dataset;
  /** By name (the key names the scorer in the report), or a list (each named by its `name`). */
  scorers: Record<string, ScorerLike> | readonly ScorerLike[];
  /** How many times each case runs. @default 1 */
  iterations?: number;
  /** How many runs at once. @default 4 */
  concurrency?: number;
  /**
   * Where the runs and the report (under its id) are kept; else the target's own store (the report
   * too); else a memory store of the evaluation's own, gone with it.
   */
  store?: Store;
  /** What the whole evaluation may spend on model calls, runs' and scorers' together. */
  budget?: Budget;
  /** The report's id. @default a new UUID */
  id?: string;
  /** Cancels the evaluation: runs in flight are aborted, no new one starts. */
  signal?: AbortSignal;
  /** Told as each run is scored, in the order they finish. */
  onCase?: (result: EvalCaseResult) => void;
}

/** The path a run took: what completed, in order, and each choice made. */
export interface RunPath {
  /** A flow's completed steps (a child flow's by path: `review › draft`); a crew's completed tasks. */
  trail: string[];
  /** A flow's choices, as `FlowPath.routes` names them (a router's label, a wait's, `failed`); `{}` for a crew. */
  routes: Record<string, string | string[]>;
  /** Everything the flow emitted, in order (empty for a crew). */
  emitted: string[];
  /** Steps or tasks that failed, by name. */
  failed: string[];
  /** A paused flow run's steps that wait (a human's answer, an event): reached, not completed. */
  waiting?: string[];
}

/** A scorer's verdict on one run: of the run's output, or its mean over nodes with each node's. */
export interface CaseScore extends Score {
  /** Per node (`level: 'node'`): each task's or step's score; `score` is then their mean. */
  nodes?: Record<string, Score>;
}

/** Usage of one run or of a whole evaluation: every model call, and apart what the scorers' judges spent. */
export interface EvalUsage extends Usage {
  judge: Usage;
}

/** One run of one case. */
export interface EvalCaseResult {
  /** The case's id, or its position in the dataset (`"0"`, `"1"`, …). */
  caseId: string;
  /** Its position in the dataset. */
  index: number;
  /** 1 to `iterations`. */
  iteration: number;
  inputs: Record<string, unknown>;
  expected?: unknown;
  /** The run's id, in `store`. */
  runId: string;
  /** The run's status; `error` when it threw before it ran (bad inputs, say). */
  status: 'completed' | 'failed' | 'partial' | 'paused' | 'error';
  /** The run's output, as JSON holds it. */
  output: unknown;
  /** What failed the run, when it failed. */
  error?: { code: string; message: string };
  scores: Record<string, CaseScore>;
  usage: EvalUsage;
  costUsd?: number;
  timeMs: number;
  path: RunPath;
}

/** A scorer's figures over the evaluation. */
export interface ScorerSummary {
  mean: number;
  min: number;
  max: number;
  /** How many scores (runs, or nodes for a node scorer). */
  count: number;
  /** How many could not be scored (`error`). */
  errors: number;
  /** A node scorer's mean per task or step. */
  nodes?: Record<string, { mean: number; count: number }>;
}

/** The evaluation's figures. */
export interface EvalSummary {
  cases: number;
  runs: number;
  statuses: Record<EvalCaseResult['status'], number>;
  scorers: Record<string, ScorerSummary>;
  usage: EvalUsage;
  costUsd?: number;
  timeMs: { p50: number; p95: number; mean: number; total: number };
}

/** Which of a set of things some run took, and which none did. */
export interface Covered {
  covered: string[];
  uncovered: string[];
  /** covered / (covered + uncovered); 1 when there is none. */
  ratio: number;
}

/** What the dataset's runs exercised of the target, read against its proof (`analyze()`). */
export interface EvalCoverage {
  kind: 'crew' | 'flow';
  /** Every path of the flow (a crew's: its tasks in order), by its trail joined with ` → `. */
  paths: Covered & { total: number };
  /** Declared routes `router=label` (a wait's `onTimeout` label among them). */
  routes: Covered;
  /** Failure handlers: steps that listen to `failed(step)`, by their name. */
  failureHandlers: Covered;
  /** Timeouts: each wait's or human step's `onTimeout` route, `step=label`. */
  timeouts: Covered;
  /** Steps (flow) or tasks (crew) that some run completed, and those none did. */
  nodes: Covered;
  /** Every edge of the definition's picture, with how many runs took it: `taken: 0` is never. */
  edges: { from: string; to: string; label?: string; taken: number }[];
  /** The analysis stopped at its path limit: `paths` counts only those it listed. */
  truncated: boolean;
}

/** What `evaluate` returns. */
export interface EvalReport {
  /** The report format: 1. */
  format: 1;
  id: string;
  target: { kind: 'crew' | 'flow'; name: string };
  /** When it started, ISO 8601. */
  startedAt: string;
  iterations: number;
  /** The scorers by name, with their level. */
  scorers: { name: string; level: ScoreLevel }[];
  cases: EvalCaseResult[];
  summary: EvalSummary;
  coverage: EvalCoverage;
}

/** How one scorer moved between two reports. */
export interface ScorerDelta {
  scorer: string;
  baseline: number;
  candidate: number;
  /** candidate − baseline. */
  delta: number;
  nodes?: Record<string, { baseline: number; candidate: number; delta: number }>;
}

/** A case whose score fell between two reports (cases matched by `caseId` and iteration mean). */
export interface RegressedCase {
  caseId: string;
  scorer: string;
  baseline: number;
  candidate: number;
  delta: number;
}

/** What `compareEvals` returns. */
export interface EvalComparison {
  scorers: ScorerDelta[];
  regressed: RegressedCase[];
  improved: RegressedCase[];
  /** Cases in one report and not the other. */
  added: string[];
  removed: string[];
  /** Coverage ratios, baseline and candidate. */
  coverage: { baseline: number; candidate: number; delta: number };
  /** Scorers only one report has: not compared (absent from `scorers`, `regressed` and `improved`). */
  unmatchedScorers?: { baseline: string[]; candidate: string[] };
  /** Time p50 and cost, baseline and candidate. */
  timeMs: { baseline: number; candidate: number };
  costUsd?: { baseline: number; candidate: number };
}
