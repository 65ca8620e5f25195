import { InvalidOptionError } from '../../errors.js';
import { ExecutionDocument } from '../../runtime/crew/execution-document.js';
import { loadSnapshot } from '../../runtime/flow/flow-store.js';
import { pruneStore, STORED_RUN_STATUSES, type Store, type StoredRunStatus } from '../../stores/store.js';
import { clipLine, fitCell, fitWidths, textWidth } from '../fit.js';
import type { CliIo } from '../output.js';
import { storeFromOption } from '../store-option.js';
import { parseDuration } from './durations.js';

/** Options of `statecrew runs`. */
export interface RunsCommandOptions {
  status?: string | undefined;
  store?: string | undefined;
  json?: boolean | undefined;
  limit?: string | undefined;
  /** Deletes the settled runs (or those of `--status`) last changed longer ago than this duration. */
  prune?: string | undefined;
  /** With `prune`: keep the runs and their history (checkpoints, results), delete only their kept events. */
  keepHistory?: boolean | undefined;
  /** Only the runs of this thread, oldest first. */
  thread?: string | undefined;
}

/** One stored run as `statecrew runs` lists it. */
export interface RunRow {
  id: string;
  name: string;
  kind: 'crew' | 'flow';
  status: string;
  /** When it started (crews) or was last written (flows), in epoch ms. */
  at: number;
}

/**
 * The statuses `statecrew runs` shows and `--status` takes: the stored ones, and `interrupted` (a crew
 * run that has not ended: still running, or its process died).
 */
export const LISTED_RUN_STATUSES = [...STORED_RUN_STATUSES, 'interrupted'] as const;

/** `status` itself when `allowed` holds it (or it is not given); else an `invalid_option` naming the valid ones. */
export function checkStatus(status: string | undefined, allowed: readonly string[]): string | undefined {
  if (status === undefined || allowed.includes(status)) return status;
  throw new InvalidOptionError('statecrew runs', '--status', `one of ${allowed.join(', ')}`, status);
}

/**
 * `statecrew runs`: the store's runs, most recent first — id, name, kind, status and time; `--status`
 * keeps one status (`paused`, `failed`, …; another word is refused); `--thread` lists the runs of
 * one thread instead, oldest first (each at its creation time). On a narrow terminal the rows
 * are shortened to fit. Resolves with the exit code.
 */
export async function runsCommand(options: RunsCommandOptions, io: CliIo): Promise<number> {
  checkStatus(options.status, options.prune === undefined ? LISTED_RUN_STATUSES : STORED_RUN_STATUSES);
  if (options.keepHistory === true && options.prune === undefined) {
    throw new InvalidOptionError('statecrew runs', '--keep-history', 'with --prune <duration>', true);
  }
  if (options.prune !== undefined && options.thread !== undefined) {
    throw new InvalidOptionError(
      'statecrew runs',
      '--thread',
      'no --prune (pruning takes no thread)',
      options.thread,
    );
  }
  const store = await storeFromOption(options.store);
  try {
    if (options.prune !== undefined) return await prune(store, options, io);
    const limit = options.limit === undefined ? 50 : Number(options.limit);
    const rows =
      options.thread === undefined ? await storedRows(store) : await threadRows(store, options.thread);
    const shown = rows
      .filter((r) => options.status === undefined || r.status === options.status)
      .slice(0, Number.isFinite(limit) && limit > 0 ? limit : 50);
    if (options.json === true) {
      io.stdout.write(`${JSON.stringify(shown, null, 2)}\n`);
      return 0;
    }
    if (shown.length === 0) {
      io.stdout.write('no runs\n');
      return 0;
    }
    io.stdout.write(runsTable(shown, io.stdout.columns));
    return 0;
  } finally {
    await store.close();
  }
}

/** Every stored run as a row, most recent first (crews by their start, flows by their last write). */
async function storedRows(store: Store): Promise<RunRow[]> {
  const crewIds = new Set([
    ...(await store.executions('crew_executions')),
    ...(await store.executions('crew_task_results')),
  ]);
  const rows: RunRow[] = [];
  for (const id of crewIds) {
    const doc = await ExecutionDocument.fromStore(store, id);
    if (doc !== undefined)
      rows.push({ id, name: doc.crew, kind: 'crew', status: doc.status, at: doc.startedAt });
  }
  for (const id of await store.executions('flow_runs')) {
    const flow = await loadSnapshot(store, id);
    if (flow !== undefined)
      rows.push({ id, name: flow.flow, kind: 'flow', status: flow.status, at: flow.updatedAt });
  }
  return rows.sort((a, b) => b.at - a.at || a.id.localeCompare(b.id));
}

/** The runs of `thread` as rows, oldest first, each at its creation time. */
async function threadRows(store: Store, thread: string): Promise<RunRow[]> {
  const heads = await store.listRuns({ thread });
  return heads.map((h) => ({ id: h.id, name: h.name, kind: h.kind, status: h.status, at: h.createdAt }));
}

/**
 * `statecrew runs --prune <duration> [--status s] [--keep-history]`: deletes old runs with everything
 * they own (with `--keep-history`, only their kept events); a run whose lease is live (it runs now) is
 * kept, and said to be.
 */
async function prune(store: Store, options: RunsCommandOptions, io: CliIo): Promise<number> {
  const age = parseDuration('--prune', options.prune as string);
  const status = checkStatus(options.status, STORED_RUN_STATUSES);
  const statuses = status === undefined ? undefined : [status as StoredRunStatus];
  const keepHistory = options.keepHistory === true;
  const olderThan = Date.now() - age;
  const { pruned, kept } = await pruneStore(store, {
    olderThan,
    statuses,
    ...(keepHistory ? { keepHistory } : {}),
  });
  if (options.json === true) io.stdout.write(`${JSON.stringify({ pruned, kept }, null, 2)}\n`);
  else io.stdout.write(prunedText(pruned, io.stdout.columns, kept, keepHistory));
  return 0;
}

/**
 * What `--prune` deleted, and the live runs it kept (a line of their own, when there are any): each
 * on one line, or one id a line when that line would not fit the terminal.
 */
export function prunedText(
  pruned: readonly string[],
  columns: number | undefined,
  kept: readonly string[] = [],
  keptHistory = false,
): string {
  const runs = `${pruned.length} run${pruned.length === 1 ? '' : 's'}`;
  const head = keptHistory ? `deleted the kept events of ${runs} (their history kept)` : `pruned ${runs}`;
  const text = idsText(head, pruned, columns);
  if (kept.length === 0) return text;
  return text + idsText(`kept ${kept.length} live run${kept.length === 1 ? '' : 's'}`, kept, columns);
}

/** `head` and its ids on one line, or one id a line when that line would not fit `columns`. */
function idsText(head: string, ids: readonly string[], columns: number | undefined): string {
  const line = `${head}${ids.length > 0 ? `: ${ids.join(', ')}` : ''}`;
  if (columns === undefined || textWidth(line) <= columns) return `${line}\n`;
  return `${[`${head}:`, ...ids.map((id) => clipLine(`  ${id}`, columns))].join('\n')}\n`;
}

const HEADER = ['ID', 'NAME', 'KIND', 'STATUS', 'TIME'];
/** On a narrow terminal: names are cut first (to 8 columns), then ids (to 9), then names again (to 4). */
const SHRINKS = [
  { column: 1, minimum: 8 },
  { column: 0, minimum: 9 },
  { column: 1, minimum: 4 },
];
const GAP = 2;

/** When a run started or was last written: ISO 8601, or `MM-DD HH:MM` (UTC) on a narrow terminal. */
const timeOf = (at: number, short: boolean) => {
  const iso = new Date(at).toISOString();
  return short ? `${iso.slice(5, 10)} ${iso.slice(11, 16)}` : iso;
};

/** The table's cells, a header first; the times short (with a `TIME (UTC)` header) or in full. */
const cellsOf = (rows: readonly RunRow[], short: boolean) => [
  short ? [...HEADER.slice(0, -1), 'TIME (UTC)'] : HEADER,
  ...rows.map((r) => [r.id, r.name, r.kind, r.status, timeOf(r.at, short)]),
];

/** Each column's widest cell. */
const widthsOf = (table: readonly string[][]) =>
  HEADER.map((_, i) => Math.max(...table.map((row) => textWidth(row[i] ?? ''))));

/**
 * The runs as a table under a header. When the terminal's `columns` are known and the table is wider,
 * times are shortened to `MM-DD HH:MM` (UTC), then names and ids are cut with `…`, and any row still
 * too wide is cut at the edge: no row wraps. A closing line says so when ids were cut (`--json` shows
 * them whole).
 */
export function runsTable(rows: readonly RunRow[], columns: number | undefined): string {
  const gaps = GAP * (HEADER.length - 1);
  const long = cellsOf(rows, false);
  const wide = columns !== undefined && widthsOf(long).reduce((a, b) => a + b, gaps) > columns;
  const table = wide ? cellsOf(rows, true) : long;
  const natural = widthsOf(table);
  const widths = fitWidths(natural, SHRINKS, GAP, columns);
  const lines = table.map((row) =>
    clipLine(
      row
        .map((cell, i) => fitCell(cell, widths[i] ?? 0))
        .join(' '.repeat(GAP))
        .trimEnd(),
      columns,
    ),
  );
  if ((widths[0] ?? 0) < (natural[0] ?? 0)) {
    lines.push(clipLine('(ids cut to fit; --json shows them whole)', columns));
  }
  return `${lines.join('\n')}\n`;
}
