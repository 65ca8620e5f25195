import { PATH_SEPARATOR } from '../machines/flow/waits.js';
import type { StepDetails } from '../runtime/flow/definition.js';
import type { FlowRunFacts } from './flow-runs.js';
import { mapFactsOfOutput, shownItems } from './map-runs.js';
import type { ViewNode, ViewSubflow } from './model.js';
import { seenSubflow, subflowOf } from './subflow-runs.js';

/** A map step's output text past this many characters is cut in the panel: its items are listed apart. */
const MAP_OUTPUT_CHARS = 20_000;

/** A map step's counts and items from its latest run: its `flow.item` events, else its stored output. */
function mapDetails(node: ViewNode, facts: FlowRunFacts): void {
  const latest = node.runs.at(-1);
  if (latest === undefined) return;
  const seen =
    facts.maps.get(latest.id) ??
    (facts.id === undefined ? undefined : mapFactsOfOutput(latest.structured, facts.id, latest.id));
  if (seen === undefined) return;
  node.map = { ...node.map, counts: seen.counts, ...shownItems(seen) };
  // The output lists every item: the panel shows the items apart, and the text cut.
  for (const run of node.runs) {
    delete run.structured;
    if (run.output !== undefined && run.output.length > MAP_OUTPUT_CHARS)
      run.output = `${run.output.slice(0, MAP_OUTPUT_CHARS)}\n… (cut: ${seen.counts.total} items, listed apart)`;
  }
  delete node.structured;
  if (node.output !== undefined && node.output.length > MAP_OUTPUT_CHARS)
    node.output = latest.output ?? node.output.slice(0, MAP_OUTPUT_CHARS);
}

/** Marks paused the steps a wait's path names, down the nested boxes: `review › approve` marks `approve`. */
function markWaiting(subflow: ViewSubflow, path: readonly string[]): void {
  const [name, ...rest] = path;
  const step = subflow.steps.find((s) => s.name === name);
  if (step === undefined) return;
  step.status = 'paused';
  if (step.subflow !== undefined) markWaiting(step.subflow, rest);
}

/** A flow step's nested box with its child run's steps, the child run's id, and where the run waits in it. */
function subflowDetails(node: ViewNode, facts: FlowRunFacts, step: StepDetails | undefined): void {
  const latest = node.runs.at(-1);
  const wait = facts.childWaits.get(node.id);
  const runId =
    wait?.runId ?? (latest === undefined || facts.id === undefined ? undefined : `${facts.id}/${latest.id}`);
  const place = { runId, finished: facts.finished };
  if (step?.subflow !== undefined) node.subflow = subflowOf(step.subflow, facts.children, place);
  else if (runId !== undefined) node.subflow = seenSubflow(node.subflow?.flow ?? '', facts.children, runId);
  if (node.subflow === undefined || wait === undefined) return;
  node.subflow.waitsAt = wait.path;
  markWaiting(node.subflow, wait.path.split(PATH_SEPARATOR).slice(1));
  if (!facts.finished) node.status = 'paused';
}

/**
 * A map or flow step's run details on its node: a map step's item counts and items, a flow step's
 * child steps with their statuses, its child run and where the run waits in it.
 */
export function composedDetails(node: ViewNode, facts: FlowRunFacts, step: StepDetails | undefined): void {
  if (node.kind === 'map') mapDetails(node, facts);
  if (node.kind === 'flow') subflowDetails(node, facts, step);
}
