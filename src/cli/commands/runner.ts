import { InvalidOptionError } from '../../errors.js';
import type { Crew } from '../../runtime/crew/crew.js';
import { createRunner } from '../../runtime/durable/runner.js';
import type { FlowSchedule } from '../../runtime/durable/schedules.js';
import type { Flow } from '../../runtime/flow/flow.js';
import { SqliteStore } from '../../stores/sqlite.js';
import type { StatecrewEvent } from '../../types.js';
import { untilStopSignal } from '../interrupt.js';
import { isCrew, isFlow, loadModule } from '../load-target.js';
import { type CliIo, errorLine } from '../output.js';
import { openStore } from '../store-option.js';
import { positiveInteger, shutdownGraceOf } from './durations.js';

/** Options of `statecrew runner`. */
export interface RunnerCommandOptions {
  store?: string | undefined;
  pollMs: string;
  shutdownGraceMs?: string | undefined;
}

/** One line per run the runner takes over, leaves alone, or sees end. */
function eventLine(event: StatecrewEvent): string | undefined {
  switch (event.type) {
    case 'run.recovered':
      return `recovered ${event.kind} "${event.name}" run ${event.runId}${event.previousOwner === null ? '' : ` (its owner ${event.previousOwner} is gone)`}`;
    case 'run.skipped':
      return `left ${event.kind} run ${event.runId} alone: ${event.reason}`;
    case 'run.scheduled':
      return `started flow "${event.name}" run ${event.runId} (schedule ${event.schedule})`;
    case 'run.completed':
      return event.step === undefined ? `run ${event.runId} ${event.status}` : undefined;
    case 'run.suspended':
      return event.step === undefined ? `run ${event.runId} suspended, to be resumed` : undefined;
    case 'run.failed':
      return event.step === undefined ? `run ${event.runId} failed: ${event.error}` : undefined;
    default:
      return undefined;
  }
}

/**
 * `statecrew runner <file>`: resumes the stored runs of the crews and flows a module exports whose
 * process died — at once, then every `--poll-ms` — until Ctrl-C or SIGTERM, which give the runs it
 * resumed `--shutdown-grace-ms` to reach their next commit, then leave them for a runner to resume. The store is `--store`, else the first definition's own, else the default SQLite
 * file. Resolves with the exit code.
 */
export async function runnerCommand(file: string, options: RunnerCommandOptions, io: CliIo): Promise<number> {
  const pollMs = positiveInteger('--poll-ms', options.pollMs);
  const shutdownGraceMs = shutdownGraceOf('statecrew runner', options.shutdownGraceMs);
  const module = await loadModule(file);
  const flows = Object.values(module).filter((v): v is Flow<object> => isFlow(v));
  const crews = Object.values(module).filter((v): v is Crew => isCrew(v));
  const opened = options.store === undefined ? undefined : await openStore(options.store);
  const store = opened ?? [...flows, ...crews].find((d) => d.store !== undefined)?.store ?? new SqliteStore();
  const schedules = schedulesOf(module);
  const runner = createRunner({ store, flows, crews, pollMs, schedules, shutdownGraceMs });
  runner.events$.subscribe((event) => {
    const line = eventLine(event);
    if (line !== undefined) io.stdout.write(`${line}\n`);
  });
  const names = [...flows, ...crews].map((d) => d.name).join(', ') || '(none)';
  const timed = schedules.length === 0 ? '' : `, ${schedules.length} schedule(s)`;
  io.stdout.write(
    `runner on ${store.kind} store for ${names}${timed}: looking for stuck runs every ${pollMs} ms\n`,
  );
  const first = runner.recover().catch((error: unknown) => {
    io.stderr.write(errorLine(error, false));
  });
  await untilStopSignal(() => void runner.close());
  const closing = runner.close();
  io.stdout.write(
    `runner stopping: the runs it resumed get up to ${shutdownGraceMs} ms to reach their next commit\n`,
  );
  await closing;
  await first;
  await store.close();
  return 0;
}

/** The schedules a module exports as `schedules` (an array of `FlowSchedule`), if any. */
function schedulesOf(module: Record<string, unknown>): FlowSchedule[] {
  const { schedules } = module;
  if (schedules === undefined) return [];
  if (!Array.isArray(schedules)) {
    throw new InvalidOptionError(
      'statecrew runner',
      'schedules',
      'an exported array of schedules',
      schedules,
    );
  }
  return schedules as FlowSchedule[];
}
