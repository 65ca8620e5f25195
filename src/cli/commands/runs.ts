import { InvalidOptionError } from '../../errors.js';
import { ExecutionDocument } from '../../runtime/execution-document.js';
import { loadSnapshot } from '../../runtime/flow/flow-store.js';
import { STORED_RUN_STATUSES, type Store, type StoredRunStatus } from '../../stores/store.js';
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
 * `statecrew runs`: the store's runs, most recent first — id, name, kind, status and time; `--status`
 * keeps one status (`paused`, `failed`, …). Resolves with the exit code.
 */
export async function runsCommand(options: RunsCommandOptions, io: CliIo): Promise<number> {
  const store = await storeFromOption(options.store);
  try {
    if (options.prune !== undefined) return await prune(store, options, io);
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
    const limit = options.limit === undefined ? 50 : Number(options.limit);
    const shown = rows
      .filter((r) => options.status === undefined || r.status === options.status)
      .sort((a, b) => b.at - a.at || a.id.localeCompare(b.id))
      .slice(0, Number.isFinite(limit) && limit > 0 ? limit : 50);
    if (options.json === true) {
      io.stdout.write(`${JSON.stringify(shown, null, 2)}\n`);
      return 0;
    }
    if (shown.length === 0) {
      io.stdout.write('no runs\n');
      return 0;
    }
    const table = [
      ['ID', 'NAME', 'KIND', 'STATUS', 'TIME'],
      ...shown.map((r) => [r.id, r.name, r.kind, r.status, new Date(r.at).toISOString()]),
    ];
    const widths = table[0]?.map((_, i) => Math.max(...table.map((row) => (row[i] ?? '').length))) ?? [];
    io.stdout.write(
      `${table
        .map((row) =>
          row
            .map((cell, i) => cell.padEnd(widths[i] ?? 0))
            .join('  ')
            .trimEnd(),
        )
        .join('\n')}\n`,
    );
    return 0;
  } finally {
    await store.close();
  }
}

/** `statecrew runs --prune <duration> [--status s]`: deletes old runs with everything they own. */
async function prune(store: Store, options: RunsCommandOptions, io: CliIo): Promise<number> {
  const age = parseDuration('--prune', options.prune as string);
  const status = options.status;
  if (status !== undefined && !(STORED_RUN_STATUSES as readonly string[]).includes(status)) {
    throw new InvalidOptionError('statecrew', '--status', `one of ${STORED_RUN_STATUSES.join(', ')}`, status);
  }
  const statuses = status === undefined ? undefined : [status as StoredRunStatus];
  const pruned = await store.prune({ olderThan: Date.now() - age, statuses });
  if (options.json === true) io.stdout.write(`${JSON.stringify({ pruned }, null, 2)}\n`);
  else
    io.stdout.write(
      `pruned ${pruned.length} run${pruned.length === 1 ? '' : 's'}${pruned.length > 0 ? `: ${pruned.join(', ')}` : ''}\n`,
    );
  return 0;
}
