import type { Usage } from '../types.js';

/** Where a node of a run view stands. */
export type ViewStatus = 'waiting' | 'running' | 'completed' | 'failed' | 'blocked' | 'paused' | 'not-run';

/** Every {@link ViewStatus}, in the order the legend shows them. */
export const VIEW_STATUSES: readonly ViewStatus[] = [
  'completed',
  'running',
  'waiting',
  'paused',
  'failed',
  'blocked',
  'not-run',
];

/**
 * What a node stands for: a crew's task, a hierarchical manager or synthesis, a loop's judge, the
 * crew's summary, a flow step (a router, a human step, a step waiting for an outside event, a sleep,
 * a map over items, a child flow), or a marker (a parallel crew's start, a loop's end).
 */
export type ViewNodeKind =
  | 'task'
  | 'manager'
  | 'synthesis'
  | 'judge'
  | 'summary'
  | 'start'
  | 'end'
  | 'step'
  | 'router'
  | 'human'
  | 'wait'
  | 'sleep'
  | 'map'
  | 'flow';

/** What a human step asked and what its human answered. */
export interface ViewHuman {
  prompt?: string;
  routes: string[];
  /** The chosen route, once answered. */
  route?: string;
  feedback?: unknown;
  /** Epoch ms when the run paused for it, and how long it waited (when the resume was seen). */
  waitingSince?: number;
  waitedMs?: number;
  /** How long the human has, as defined (ms), and when the wait times out (epoch ms, once it waits). */
  deadlineMs?: number;
  timeoutAt?: number;
  /** The label it emits when the human did not answer in time. */
  onTimeout?: string;
  /** The human did not answer in time: the step emitted its `onTimeout` label (or failed). */
  timedOut?: boolean;
}

/** What a wait step waits for, and how its wait went. */
export interface ViewWait {
  /** The outside event it waits for (`flow.signal(id, event)`). */
  event: string;
  /** How long it may wait, as defined (ms), and when the wait times out (epoch ms, once it waits). */
  deadlineMs?: number;
  timeoutAt?: number;
  /** The label it emits when the event did not come in time. */
  onTimeout?: string;
  /** Epoch ms when the run paused for it, and how long it waited (when the signal or timeout was seen). */
  waitingSince?: number;
  waitedMs?: number;
  /** The event did not come in time: the step emitted its `onTimeout` label (or failed). */
  timedOut?: boolean;
}

/** A sleep step's sleep: as defined, and when it wakes. */
export interface ViewSleep {
  /** How long it sleeps, as defined; absent for a sleep until a time the run computes. */
  ms?: number;
  /** When its latest run wakes (epoch ms on the run's clock), once it started sleeping. */
  wakeAt?: number;
}

/** How many items of a map step run stand where: running (or to retry), completed, failed, of `total`. */
export interface ViewMapCounts {
  total: number;
  running: number;
  completed: number;
  failed: number;
}

/** One item of a map step run: where it stands, and its child run. */
export interface ViewMapItem {
  index: number;
  itemId: string;
  status: 'running' | 'retrying' | 'completed' | 'failed';
  /** The item's child run: `<parent id>/<node id>/<itemId>`. */
  childId: string;
  attempt: number;
  error?: string;
  code?: string;
}

/**
 * A map step: what each item runs and how many at once, as defined; from a run, its latest run's
 * item counts and its items — at most {@link MAP_ITEMS_SHOWN} of them (the failed and running ones
 * first), `more` saying how many are not listed.
 */
export interface ViewMap {
  /** What each item runs (absent in a stored run drawn without its definition). */
  runs?: 'crew' | 'flow' | 'function';
  /** The crew's or the flow's name (absent for a function). */
  target?: string;
  /** Items run at once, as defined. */
  concurrency?: number;
  allowFailures?: boolean;
  counts?: ViewMapCounts;
  items?: ViewMapItem[];
  more?: number;
}

/** Items of a map step a view lists at most: a 10,000-item map lists these and says how many more. */
export const MAP_ITEMS_SHOWN = 100;

/** A step of a child flow, drawn inside its flow step's box. */
export interface ViewSubflowStep {
  name: string;
  kind: ViewNodeKind;
  status: ViewStatus;
  /** The child's own child flow, when this step is a flow step. */
  subflow?: ViewSubflow;
}

/**
 * A flow step's child flow: its name and steps (with statuses from a run), the child run's id
 * (`<parent id>/<node id>`), and where it waits when the parent is paused in it (`review › approve`).
 */
export interface ViewSubflow {
  flow: string;
  steps: ViewSubflowStep[];
  runId?: string;
  waitsAt?: string;
}

/**
 * A message between agents in a node's run: an agent's `delegate_work` (`kind: 'delegate'`) or
 * `ask_question` (`'ask'`) to coworker `to`, what it asked, and the reply, the error, or the code of
 * the refusal that kept it from being sent.
 */
export interface ViewMessage {
  kind: 'delegate' | 'ask';
  from: string;
  to: string;
  /** The task or question. */
  task: string;
  context?: string;
  /** Hand-overs from the task's agent: 1 when the task's own agent asked. */
  depth?: number;
  /** Epoch ms when it was asked; absent when the source does not say (a result without its events). */
  at?: number;
  /** How long the coworker took to answer; absent while it has not answered. */
  durationMs?: number;
  reply?: string;
  error?: string;
  /** Refused before it was sent: `unknown_coworker`, `delegation_loop`, `delegation_depth`, `repeated_call`. */
  code?: string;
}

/** One run of a node: a task run, a loop iteration's run (`<task>#<iteration>`), a step's run. */
export interface ViewRun {
  /** The run's node id as the runtime names it (`draft#2`). */
  id: string;
  /** Loop iteration or step run number, from 1. */
  iteration?: number;
  status: ViewStatus;
  agent?: string;
  /** What the agent was asked (persona and task lines), and the context it read. */
  prompt?: string;
  context?: string;
  /** The output text, and the parsed value when there is one. */
  output?: string;
  structured?: unknown;
  usage?: Usage;
  costUsd?: number;
  error?: string;
  code?: string;
  /** A failed flow step whose failure a `failed(step)` trigger handles: the run went on. */
  handled?: boolean;
  attempts?: number;
  /** Retries taken (attempts after the first). */
  retries?: number;
  /** Epoch ms of the first attempt's start. */
  startedAt?: number;
  durationMs?: number;
  /** Each attempt's span, when the run's events were seen. */
  attemptSpans?: ViewSpan[];
  /** The messages its agents sent coworkers, and their replies, in the order asked. */
  messages?: ViewMessage[];
}

/** A span of time: an attempt, or a wait. */
export interface ViewSpan {
  /** Epoch ms. */
  startedAt: number;
  durationMs: number;
  ok: boolean;
}

/** One node of the picture, with the details the panel shows (those of its latest run). */
export interface ViewNode extends Omit<ViewRun, 'id' | 'iteration'> {
  id: string;
  label: string;
  kind: ViewNodeKind;
  /** A task's description and expected output (as defined; a run's prompt has them filled in). */
  description?: string;
  expectedOutput?: string;
  /** Extra lines for the panel: a manager's delegations, a judge's verdicts, a step's trigger. */
  notes?: string[];
  human?: ViewHuman;
  wait?: ViewWait;
  sleep?: ViewSleep;
  /** A map step's items. */
  map?: ViewMap;
  /** A flow step's child flow. */
  subflow?: ViewSubflow;
  /** Every run of the node, in order (a loop task's iterations); empty when it never ran. */
  runs: ViewRun[];
}

/** An edge of the picture: from a node to one that follows it or reads it. */
export interface ViewEdge {
  from: string;
  to: string;
  /** The route label (flow routers and human steps), `YES`/`NO` for a loop's judge, a gate's kind. */
  label?: string;
  /** Whether the run went along it. */
  taken: boolean;
  /** `true` for the edge back to a loop's first task. */
  back?: boolean;
  /**
   * What makes a flow edge taken besides a completion: its step's failure (`failed(step)`, label
   * `failed`), or its human or wait step timing out (its `onTimeout` label).
   */
  kind?: 'failure' | 'timeout';
}

/** One bar of the timeline: a node run, or a wait (for a human's answer or an outside event). */
export interface TimelineEntry {
  node: string;
  run: string;
  label: string;
  kind: 'run' | 'wait';
  /** What a wait bar waited for. */
  waitingFor?: 'human' | 'event';
  status: ViewStatus;
  /** Ms since the run started. */
  startMs: number;
  durationMs: number;
  attempts?: number;
  retries?: number;
  /** Attempt spans, in ms since the run started. */
  spans?: { startMs: number; durationMs: number; ok: boolean }[];
}

/** What a run spent, altogether. */
export interface ViewTotals {
  usage: Usage;
  /** What each agent's model calls spent, by role (a coworker's under its own role; not a manager's or judge's). */
  agents?: Record<string, Usage>;
  costUsd?: number;
  /** Epoch ms when the run started, and how long it took. */
  startedAt?: number;
  timeMs?: number;
}

/** How a message between agents went: answered, failed, refused before it was sent, or still out. */
export type MessageState = 'replied' | 'failed' | 'refused' | 'waiting';

/** One message on the agents' timeline: asked at `startMs`, answered `durationMs` later. */
export interface TimelineMessage {
  /** The node and the run it was sent in, and its index among that run's messages. */
  node: string;
  run: string;
  index: number;
  kind: 'delegate' | 'ask';
  from: string;
  to: string;
  task: string;
  state: MessageState;
  code?: string;
  /** Ms since the run started. */
  startMs: number;
  durationMs: number;
}

/** A stretch of an agent's work on the agents' timeline: a task run, or a coworker answering. */
export interface AgentSpan {
  agent: string;
  node: string;
  run: string;
  /** A task run's own status, or how the coworker's answer went. */
  status: ViewStatus | MessageState;
  startMs: number;
  durationMs: number;
}

/**
 * The timeline as a lane per agent, with the messages between them: drawn when agents of the run
 * messaged each other.
 */
export interface AgentLanes {
  /** Roles, in the order they first worked or were asked. */
  agents: string[];
  spans: AgentSpan[];
  messages: TimelineMessage[];
}

/** How a viewed run ended, or where it stands. */
export type RunViewStatus =
  | 'completed'
  | 'partial'
  | 'failed'
  | 'paused'
  | 'running'
  | 'interrupted'
  | 'aborted';

/**
 * A crew's or a flow's picture as plain data (it survives JSON): its nodes with their statuses and
 * details, its edges with the executed path marked, a timeline and totals. `renderRunView` draws it.
 */
export interface RunView {
  kind: 'crew' | 'flow';
  name: string;
  /** A crew's process. */
  process?: string;
  /** The execution id (crews) or state id (flows) of the viewed run. */
  id?: string;
  /** Absent for a definition without a run. */
  status?: RunViewStatus;
  nodes: ViewNode[];
  edges: ViewEdge[];
  timeline: TimelineEntry[];
  /** The agents' lanes and the messages between them, when there were any. */
  lanes?: AgentLanes;
  totals: ViewTotals;
}
