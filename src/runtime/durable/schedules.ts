import { Cron } from 'croner';
import { InvalidOptionError } from '../../errors.js';
import type { Store } from '../../stores/store.js';
import type { Clock } from '../engine/clock.js';
import { requiredText } from '../engine/validate.js';

/** A flow started on a cron schedule by a runner (`createRunner({ schedules })`). */
export interface FlowSchedule {
  /** The name of the flow to start (one of the runner's `flows`). */
  flow: string;
  /** A cron pattern (five fields, or six with seconds), e.g. `0 9 * * 1-5`: weekdays at 09:00. */
  cron: string;
  /** The IANA time zone the pattern reads in. @default the host's */
  timezone?: string | undefined;
  /** The inputs of every run it starts (each run's id is the schedule's name and its tick). */
  inputs?: Record<string, unknown> | undefined;
  /**
   * What a runner does with ticks that passed while it did not run: `last` starts the latest one, once
   * (unless another runner did); `none` starts only ticks that fall due while it runs. @default 'last'
   */
  catchUp?: 'last' | 'none' | undefined;
  /** Tells two schedules of one flow apart: the prefix of their runs' ids. @default the flow's name */
  name?: string | undefined;
}

/** What a runner passes to the `kickoff` of a scheduled run. */
export interface ScheduledKickoff {
  inputs: Record<string, unknown>;
  store: Store;
  clock: Clock;
  leaseMs?: number;
}

/** A checked schedule, ready to say which tick is due. */
export class Schedule {
  readonly name: string;
  readonly flow: string;
  readonly inputs: Record<string, unknown>;
  readonly catchUp: 'last' | 'none';
  readonly #cron: Cron;
  readonly #pattern: string;

  constructor(schedule: FlowSchedule, index: number) {
    const where = `createRunner schedules[${index}]`;
    if (typeof schedule !== 'object' || schedule === null) {
      throw new InvalidOptionError(
        where,
        'schedule',
        '{ flow, cron, timezone?, inputs?, catchUp?, name? }',
        schedule,
      );
    }
    requiredText(where, 'flow', schedule.flow);
    requiredText(where, 'cron', schedule.cron);
    if (schedule.catchUp !== undefined && schedule.catchUp !== 'last' && schedule.catchUp !== 'none') {
      throw new InvalidOptionError(where, 'catchUp', "'last' or 'none'", schedule.catchUp);
    }
    this.flow = schedule.flow;
    this.name = schedule.name ?? schedule.flow;
    requiredText(where, 'name', this.name);
    this.inputs = schedule.inputs ?? {};
    this.catchUp = schedule.catchUp ?? 'last';
    this.#pattern = `${schedule.cron} ${schedule.timezone ?? ''}`.trim();
    try {
      const zone = schedule.timezone === undefined ? {} : { timezone: schedule.timezone };
      this.#cron = new Cron(schedule.cron, { paused: true, ...zone });
      this.#cron.nextRun(); // a time zone croner cannot read fails here, not at the first pass
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      throw new InvalidOptionError(
        where,
        'cron',
        `a cron pattern and time zone croner reads (${why})`,
        schedule.cron,
      );
    }
  }

  /** The run id of `tick` (epoch ms): the same in every runner, so a tick is started once. */
  runId(tick: number): string {
    return `${this.name}@${new Date(tick).toISOString()}`;
  }

  /**
   * The tick a pass at `now` should start, if any: the latest tick at or before `now` and at or after
   * `since`, when the schedule was first seen on the store — with `catchUp: 'none'`, also after
   * `runnerStart`, when the runner asking started.
   */
  dueTick(now: number, since: number, runnerStart: number): number | undefined {
    const floor = this.catchUp === 'none' ? Math.max(since, runnerStart + 1) : since;
    return this.#latestTick(now, floor);
  }

  /** The record a store keeps of this schedule: when it was first seen, and with which pattern. */
  get record(): { pattern: string } {
    return { pattern: this.#pattern };
  }

  /** The latest tick in `[since, now]`: looked for in windows back from `now`, doubling, so it stays cheap. */
  #latestTick(now: number, since: number): number | undefined {
    for (let window = 60_000; ; window *= 2) {
      const from = Math.max(since - 1, now - window);
      let tick: number | undefined = this.#cron.nextRun(new Date(from))?.getTime();
      if (tick !== undefined && tick <= now) {
        for (;;) {
          const next: number | undefined = this.#cron.nextRun(new Date(tick))?.getTime();
          if (next === undefined || next > now) return tick;
          tick = next;
        }
      }
      if (from <= since - 1) return undefined;
    }
  }
}

/** The key schedules are kept under in the store (`flow_runs`, beside no run of their own). */
const scheduleKey = (name: string) => `schedule:${name}`;

/**
 * When `schedule` was first seen on `store`: the first runner to look writes `now` (an insert that
 * only one runner wins), every later look reads it back. A schedule whose pattern changed is seen anew.
 */
export async function firstSeen(store: Store, schedule: Schedule, now: number): Promise<number> {
  const id = scheduleKey(schedule.name);
  const mine = { ...schedule.record, since: now };
  if (await store.insert('flow_runs', id, 'seen', mine)) return now;
  const stored = (await store.get('flow_runs', id, 'seen'))?.value as
    | { pattern?: unknown; since?: unknown }
    | undefined;
  if (stored?.pattern === schedule.record.pattern && typeof stored.since === 'number') return stored.since;
  await store.put('flow_runs', id, 'seen', mine);
  return now;
}

/** The checked schedules of a runner; each must name one of its flows, and their names must differ. */
export function checkSchedules(
  schedules: readonly FlowSchedule[] | undefined,
  flowNames: ReadonlySet<string>,
): Schedule[] {
  if (schedules === undefined) return [];
  if (!Array.isArray(schedules)) {
    throw new InvalidOptionError('createRunner', 'schedules', 'an array of schedules', schedules);
  }
  const checked = schedules.map((s, i) => new Schedule(s, i));
  const names = new Set<string>();
  checked.forEach((schedule, i) => {
    if (!flowNames.has(schedule.flow)) {
      const known = [...flowNames].join(', ') || 'none';
      throw new InvalidOptionError(
        `createRunner schedules[${i}]`,
        'flow',
        `one of the runner's flows (${known})`,
        schedule.flow,
      );
    }
    if (names.has(schedule.name)) {
      throw new InvalidOptionError(
        `createRunner schedules[${i}]`,
        'name',
        'a name no other schedule has',
        schedule.name,
      );
    }
    names.add(schedule.name);
  });
  return checked;
}
