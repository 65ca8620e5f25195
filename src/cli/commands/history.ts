import { readHistory } from '../../runtime/history/history.js';
import { jsonSafe } from '../../serve/json-safe.js';
import type { Checkpoint, RunHistory } from '../../types.js';
import { clipLine, ellipsize, fitCell, fitWidths, textWidth } from '../fit.js';
import { type CliIo, shellWord } from '../output.js';
import { storeFromOption } from '../store-option.js';
import { integerAtLeast } from './durations.js';

/** Options of `statecrew history`. */
export interface HistoryCommandOptions {
  store?: string | undefined;
  /** Only checkpoints after this seq (`--after`, where the previous page ended). */
  after?: string | undefined;
  /** At most this many checkpoints (`--limit`). @default every one */
  limit?: string | undefined;
  json?: boolean | undefined;
}

const WHERE = 'statecrew history';

/**
 * `statecrew history <id>`: the committed checkpoints of a stored run of any kind, in commit order —
 * seq, checkpoint, status, time and a short output — or its `RunHistory` as JSON (`--json`); one
 * page with `--after` and `--limit`. Needs only the store (no definition, no model). Resolves with
 * the exit code.
 */
export async function historyCommand(id: string, options: HistoryCommandOptions, io: CliIo): Promise<number> {
  const after = options.after === undefined ? undefined : integerAtLeast(WHERE, '--after', options.after, 0);
  const limit = options.limit === undefined ? undefined : integerAtLeast(WHERE, '--limit', options.limit, 1);
  const store = await storeFromOption(options.store);
  try {
    const history = await readHistory(store, id, { after, limit });
    if (options.json === true) io.stdout.write(`${JSON.stringify(jsonSafe(history), null, 2)}\n`);
    else io.stdout.write(historyText(history, io.stdout.columns, pageArgs(options)));
    return 0;
  } finally {
    await store.close();
  }
}

/** The options the next page's command needs again: its `--limit` and `--store`. */
const pageArgs = (options: HistoryCommandOptions) => [
  ...(options.limit === undefined ? [] : ['--limit', options.limit]),
  ...(options.store === undefined ? [] : ['--store', options.store]),
];

/** The run's line: its kind, name, id and status, and where it was forked from, and its thread. */
function headLine(history: RunHistory): string {
  const facts = [
    ...(history.forkedFrom === undefined
      ? []
      : [`forked from ${history.forkedFrom.runId} at ${history.forkedFrom.checkpoint}`]),
    ...(history.thread === undefined ? [] : [`thread ${history.thread}`]),
  ];
  const more = facts.length === 0 ? '' : ` (${facts.join('; ')})`;
  return `${history.kind} ${history.name} run ${history.id}: ${history.status}${more}`;
}

/** What a checkpoint's line shows of its output: its text's first line, its JSON, or its error. */
export function shortOutput(checkpoint: Checkpoint): string {
  if (checkpoint.status === 'failed') return `failed: ${checkpoint.error ?? ''}`;
  const { output } = checkpoint;
  if (output === undefined) return '';
  const text = typeof output === 'string' ? output : JSON.stringify(jsonSafe(output));
  return ellipsize(text.split('\n')[0] ?? '', 60);
}

const HEADER = ['SEQ', 'CHECKPOINT', 'STATUS', 'AT', 'OUTPUT'];
/** On a narrow terminal the outputs are cut first (to 10 columns), then the checkpoints (to 8). */
const SHRINKS = [
  { column: 4, minimum: 10 },
  { column: 1, minimum: 8 },
];
const GAP = 2;

/**
 * The history as a line on the run and a table of its checkpoints, cut to fit `columns`, and the
 * command that shows the next page (with `again`, its other options) when more follow.
 */
export function historyText(
  history: RunHistory,
  columns: number | undefined,
  again: readonly string[] = [],
): string {
  const lines = [clipLine(headLine(history), columns)];
  if (history.checkpoints.length === 0) {
    lines.push('  no committed checkpoints');
  } else {
    const table = [
      HEADER,
      ...history.checkpoints.map((c) => [
        String(c.seq),
        c.checkpoint,
        c.status,
        new Date(c.at).toISOString(),
        shortOutput(c),
      ]),
    ];
    const natural = HEADER.map((_, i) => Math.max(...table.map((row) => textWidth(row[i] ?? ''))));
    const widths = fitWidths(natural, SHRINKS, GAP, columns);
    for (const row of table) {
      const cells = row.map((cell, i) => fitCell(cell, widths[i] ?? 0));
      lines.push(clipLine(cells.join(' '.repeat(GAP)).trimEnd(), columns));
    }
  }
  if (history.next !== undefined) {
    const words = ['statecrew', 'history', history.id, '--after', String(history.next), ...again];
    lines.push(`more: ${words.map(shellWord).join(' ')}`);
  }
  return `${lines.join('\n')}\n`;
}
