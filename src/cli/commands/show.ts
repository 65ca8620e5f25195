import { RunNotFoundError } from '../../errors.js';
import { ExecutionDocument } from '../../runtime/crew/execution-document.js';
import { loadSnapshot } from '../../runtime/flow/flow-store.js';
import type { FlowSnapshot } from '../../runtime/flow/snapshot.js';
import type { CliIo } from '../output.js';
import { storeFromOption } from '../store-option.js';
import { resumeHint } from './flow-output.js';

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
      else io.stdout.write(crewSummary(crew));
      return 0;
    }
    const flow = await loadSnapshot(store, id);
    if (flow === undefined) throw new RunNotFoundError('statecrew show', id);
    if (options.json === true) io.stdout.write(`${JSON.stringify(flow, null, 2)}\n`);
    else if (options.markdown === true) io.stdout.write(flowMarkdown(flow));
    else io.stdout.write(flowSummary(flow));
    return 0;
  } finally {
    await store.close();
  }
}

function crewSummary(doc: ExecutionDocument): string {
  const lines = [
    `crew ${doc.crew} (${doc.process}) run ${doc.executionId}: ${doc.status}`,
    `  ${doc.summary}`,
  ];
  for (const r of doc.results) {
    const what = r.status === 'completed' ? (r.raw ?? '').split('\n')[0] : `failed: ${r.error ?? ''}`;
    lines.push(`  ${r.status === 'completed' ? '✔' : '✖'} ${r.nodeId} by ${r.agent}: ${what}`);
  }
  return `${lines.join('\n')}\n`;
}

function flowSummary(flow: FlowSnapshot): string {
  const lines = [
    `flow ${flow.flow} run ${flow.id}: ${flow.status}`,
    `  trail: ${flow.trail.join(' → ') || '(none)'}`,
  ];
  for (const [step, error] of Object.entries(flow.errors)) lines.push(`  ${step}: ${error}`);
  if (flow.status === 'paused') lines.push(...resumeHint(flow.id, flow.pending));
  return `${lines.join('\n')}\n`;
}

function flowMarkdown(flow: FlowSnapshot): string {
  const lines = [
    `# Flow run ${flow.id}`,
    '',
    `- Flow: ${flow.flow}`,
    `- Status: ${flow.status}`,
    `- Trail: ${flow.trail.join(' → ')}`,
    '',
  ];
  for (const [step, output] of Object.entries(flow.outputs)) {
    lines.push(`## ${step}`, '', '```json', JSON.stringify(output, null, 2), '```', '');
  }
  for (const [step, error] of Object.entries(flow.errors)) lines.push(`## ${step} — failed`, '', error, '');
  return `${lines.join('\n')}\n`;
}
