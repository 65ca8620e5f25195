import { RunNotFoundError } from '../../errors.js';
import { type PendingStep, stepRunOf } from '../../machines/flow/waits.js';
import { ExecutionDocument } from '../../runtime/crew/execution-document.js';
import { loadSnapshot } from '../../runtime/flow/flow-store.js';
import type { FlowSnapshot } from '../../runtime/flow/snapshot.js';
import { crewAnswerCommands, pendingOf } from '../answers.js';
import type { CliIo } from '../output.js';
import { storeFromOption } from '../store-option.js';
import { waitingForText } from '../waiting-text.js';
import { crewWaitText, resumeHint } from './flow-output.js';
import { mapCountLines } from './map-counts.js';

/** Options of `statecrew show`. */
export interface ShowCommandOptions {
  markdown?: boolean | undefined;
  json?: boolean | undefined;
  store?: string | undefined;
}

/**
 * `statecrew show <id>`: a stored run, crew or flow — a summary, its Markdown report (`--markdown`)
 * or its JSON (`--json`). Needs no definition and no model. Resolves with the exit code.
 */
export async function showCommand(id: string, options: ShowCommandOptions, io: CliIo): Promise<number> {
  const store = await storeFromOption(options.store);
  try {
    const crew = await ExecutionDocument.fromStore(store, id);
    if (crew !== undefined) {
      if (options.json === true) io.stdout.write(`${JSON.stringify(crew.toJSON(), null, 2)}\n`);
      else if (options.markdown === true) io.stdout.write(crew.toMarkdown());
      else io.stdout.write(crewSummary(crew, storeArgs(options)));
      return 0;
    }
    const flow = await loadSnapshot(store, id);
    if (flow === undefined) throw new RunNotFoundError('statecrew show', id);
    if (options.json === true) io.stdout.write(`${JSON.stringify(flow, null, 2)}\n`);
    else if (options.markdown === true) io.stdout.write(flowMarkdown(flow));
    else io.stdout.write(flowSummary(flow, storeArgs(options), await mapCountLines(store, flow)));
    return 0;
  } finally {
    await store.close();
  }
}

/** The options a `statecrew resume` of the run needs besides its id and the answer: its `--store`. */
const storeArgs = (options: ShowCommandOptions) =>
  options.store === undefined ? [] : ['--store', options.store];

/** The mark of a task result's line, by its status. */
const MARKS: Record<ExecutionDocument['results'][number]['status'], string> = {
  completed: '✔',
  failed: '✖',
  paused: '⏸',
};

/** What a task result's line says: its output's first line, what it waits for, or why it failed. */
function resultText(r: ExecutionDocument['results'][number]): string {
  if (r.status === 'completed') return (r.raw ?? '').split('\n')[0] ?? '';
  if (r.status === 'paused')
    return r.waiting === undefined ? 'waits' : `waits for ${waitingForText(r.waiting)}`;
  return `failed: ${r.error ?? ''}`;
}

function crewSummary(doc: ExecutionDocument, resumeArgs: readonly string[]): string {
  const lines = [
    `crew ${doc.crew} (${doc.process}) run ${doc.executionId}: ${doc.status}`,
    `  ${doc.summary}`,
  ];
  for (const r of doc.results) lines.push(`  ${MARKS[r.status]} ${r.nodeId} by ${r.agent}: ${resultText(r)}`);
  if (doc.status === 'paused') lines.push(...crewAnswerCommands(doc.executionId, pendingOf(doc), resumeArgs));
  return `${lines.join('\n')}\n`;
}

/** A failed step's line: its error, and whether a `failed(step)` trigger handled it. */
function errorText(flow: FlowSnapshot, step: string, error: string): string {
  return flow.failures?.[step]?.handled === true ? `${error} (handled: the flow went on)` : error;
}

/**
 * The sleep step runs a running run sleeps in, with their wake times: those that started sleeping
 * and have not completed (not in the trail, nor done in the round in progress).
 */
function sleepingRuns(flow: FlowSnapshot): { nodeId: string; wakeAt: number }[] {
  if (flow.status !== 'running') return [];
  const done = new Set((flow.done ?? []).map((d) => d.nodeId));
  const runs = new Map<string, number>();
  for (const step of flow.trail) runs.set(step, (runs.get(step) ?? 0) + 1);
  return Object.entries(flow.sleeps ?? {}).flatMap(([nodeId, wakeAt]) => {
    const { step, run } = stepRunOf(nodeId);
    const completed = done.has(nodeId) || (runs.get(step) ?? 0) >= run;
    return completed ? [] : [{ nodeId, wakeAt }];
  });
}

const isoOf = (ms: number) => new Date(ms).toISOString();

/** A stored flow run's summary: its status, trail, errors, what it waits for or sleeps in, its maps' item counts. */
function flowSummary(
  flow: FlowSnapshot,
  resumeArgs: readonly string[],
  mapCounts: readonly string[],
): string {
  const lines = [
    `flow ${flow.flow} run ${flow.id}: ${flow.status}`,
    `  trail: ${flow.trail.join(' → ') || '(none)'}`,
    ...mapCounts,
  ];
  for (const [step, error] of Object.entries(flow.errors))
    lines.push(`  ${step}: ${errorText(flow, step, error)}`);
  if (flow.status === 'paused') lines.push(...resumeHint(flow.id, flow.pending, resumeArgs));
  for (const { nodeId, wakeAt } of sleepingRuns(flow))
    lines.push(`  ${nodeId} sleeps until ${isoOf(wakeAt)}`);
  return `${lines.join('\n')}\n`;
}

/** What a paused run waits for, or what a running run sleeps in, as a Markdown section. */
function waitingMarkdown(flow: FlowSnapshot): string[] {
  const deadline = (p: PendingStep) =>
    p.timeoutAt === undefined ? '' : ` — times out at ${isoOf(p.timeoutAt)}`;
  const items = (flow.status === 'paused' ? flow.pending : []).map((p) =>
    p.kind === 'event'
      ? `- **${p.step}** waits for event \`${p.event}\`${deadline(p)}: \`statecrew signal ${flow.id} ${p.event} [--payload <json>]\``
      : p.kind === 'flow'
        ? `- **${p.step}**: flow \`${p.flow}\` (run ${p.runId}) waits at ${p.path}`
        : p.kind === 'crew'
          ? `- **${p.step}**: ${crewWaitText(p)}: \`statecrew resume ${flow.id} --approve <callId>\` (or \`--deny <callId> --feedback <why>\`, \`--review <nodeId> approve\`, \`--review <nodeId> --feedback <text>\`)`
          : `- **${p.step}** asks: ${p.prompt} (routes: ${p.routes.join(', ')})${deadline(p)}: \`statecrew resume ${flow.id} --step ${p.step} --route <route>\``,
  );
  const sleeping = sleepingRuns(flow).map(
    ({ nodeId, wakeAt }) => `- **${nodeId}** sleeps until ${isoOf(wakeAt)}`,
  );
  return [
    ...(items.length === 0 ? [] : ['## Waiting', '', ...items, '']),
    ...(sleeping.length === 0 ? [] : ['## Sleeping', '', ...sleeping, '']),
  ];
}

function flowMarkdown(flow: FlowSnapshot): string {
  const lines = [
    `# Flow run ${flow.id}`,
    '',
    `- Flow: ${flow.flow}`,
    `- Status: ${flow.status}`,
    `- Trail: ${flow.trail.join(' → ')}`,
    '',
    ...waitingMarkdown(flow),
  ];
  for (const [step, output] of Object.entries(flow.outputs)) {
    lines.push(`## ${step}`, '', '```json', JSON.stringify(output, null, 2), '```', '');
  }
  for (const [step, error] of Object.entries(flow.errors)) {
    const handled = flow.failures?.[step]?.handled === true ? ' (handled)' : '';
    lines.push(`## ${step} — failed${handled}`, '', error, '');
  }
  return `${lines.join('\n')}\n`;
}
