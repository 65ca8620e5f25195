import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFlow, createRunner, type FlowSchedule, type Runner, SqliteStore } from '../../src/index.js';
import { createManualClock, type ManualClock } from '../../src/testing.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** Monday 5 January 2026, 08:00 UTC. */
const MONDAY_8 = Date.UTC(2026, 0, 5, 8, 0, 0);

let dir: string;
let stores: SqliteStore[];
let runners: Runner[];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'statecrew-schedules-'));
  stores = [];
  runners = [];
});
afterEach(async () => {
  for (const runner of runners) await runner.close();
  for (const store of stores) await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A digest flow that notes every run it makes, by id. */
function digest(ran: string[]) {
  return createFlow({ name: 'digest', initialState: { day: '' } }).start('send', ({ state }) => {
    ran.push(state.id);
    return 'sent';
  });
}

/** A runner over its own connection to the test's one SQLite file. */
function runnerOn(clock: ManualClock, ran: string[], schedule: Partial<FlowSchedule> = {}): Runner {
  const store = new SqliteStore({ path: join(dir, 'runs.db') });
  stores.push(store);
  const schedules = [{ flow: 'digest', cron: '0 9 * * 1-5', timezone: 'UTC', ...schedule }];
  // A month between polls: the test's passes are its own `recover()` calls.
  const runner = createRunner({ store, flows: [digest(ran)], clock, pollMs: 30 * DAY, schedules });
  runners.push(runner);
  return runner;
}

describe('schedules', () => {
  it('start each tick once across two runners on one store, and nothing before the first tick', async () => {
    const clock = createManualClock(MONDAY_8);
    const ran: string[] = [];
    const [a, b] = [runnerOn(clock, ran), runnerOn(clock, ran)];
    const first = await Promise.all([a.recover(), b.recover()]);
    expect(first.flatMap((r) => r.started)).toEqual([]);
    clock.advance(HOUR + 1_000); // Monday 09:00:01
    const monday = await Promise.all([a.recover(), b.recover()]);
    expect(monday.flatMap((r) => r.started)).toEqual(['digest@2026-01-05T09:00:00.000Z']);
    expect(ran).toEqual(['digest@2026-01-05T09:00:00.000Z']);
    const again = await Promise.all([a.recover(), b.recover()]);
    expect(again.flatMap((r) => [...r.started, ...r.failed.map((f) => f.id)])).toEqual([]);
    clock.advance(DAY); // Tuesday 09:00:01
    const tuesday = await Promise.all([b.recover(), a.recover()]);
    expect(tuesday.flatMap((r) => r.started)).toEqual(['digest@2026-01-06T09:00:00.000Z']);
    expect(ran).toHaveLength(2);
    const stored = await (stores[0] as SqliteStore).readRun('digest@2026-01-06T09:00:00.000Z');
    expect(stored).toMatchObject({ kind: 'flow', name: 'digest', status: 'completed' });
  });

  it('never starts with a catch-up: ticks count from when a runner first saw the schedule', async () => {
    const clock = createManualClock(MONDAY_8 + 2 * HOUR); // Monday 10:00, after the 09:00 tick
    const ran: string[] = [];
    const report = await runnerOn(clock, ran).recover();
    expect(report.started).toEqual([]);
    expect(ran).toEqual([]);
  });

  it("runs the last missed tick once after a runner was down (catchUp 'last'), none with 'none'", async () => {
    for (const catchUp of ['last', 'none'] as const) {
      const clock = createManualClock(MONDAY_8);
      const ran: string[] = [];
      const before = runnerOn(clock, ran, { catchUp, name: `digest-${catchUp}` });
      await before.recover(); // the schedule is seen on Monday 08:00
      await before.close();
      clock.advance(3 * DAY); // Thursday 08:00: Monday's, Tuesday's and Wednesday's ticks passed
      const after = runnerOn(clock, ran, { catchUp, name: `digest-${catchUp}` });
      const report = await after.recover();
      const expected = catchUp === 'last' ? [`digest-${catchUp}@2026-01-07T09:00:00.000Z`] : [];
      expect(report.started).toEqual(expected);
      expect(ran).toEqual(expected);
      expect((await after.recover()).started).toEqual([]);
    }
  });

  it("with catchUp 'none' starts the ticks that fall due while the runner runs, from its polls", async () => {
    const clock = createManualClock(MONDAY_8);
    const ran: string[] = [];
    const store = new SqliteStore({ path: join(dir, 'runs.db') });
    stores.push(store);
    const schedules = [{ flow: 'digest', cron: '0 9 * * *', timezone: 'UTC', catchUp: 'none' as const }];
    const runner = createRunner({ store, flows: [digest(ran)], clock, pollMs: 60_000, schedules });
    runners.push(runner);
    await runner.recover();
    clock.advance(HOUR + 30_000); // 09:00:30: a poll (every minute) is under way
    await runner.recover(); // whichever pass gets there first starts the 09:00 tick, once
    await runner.close(); // lets the passes under way and the run they started settle
    expect(ran).toEqual(['digest@2026-01-05T09:00:00.000Z']);
  });

  it('refuses bad schedules with invalid_option naming what is wrong', () => {
    const store = new SqliteStore({ path: join(dir, 'runs.db') });
    stores.push(store);
    const flows = [digest([])];
    const refuse = (schedules: unknown, option: string) =>
      expect(() => createRunner({ store, flows, schedules: schedules as FlowSchedule[] })).toThrow(
        expect.objectContaining({ code: 'invalid_option', details: expect.objectContaining({ option }) }),
      );
    refuse([{ flow: 'digest', cron: 'every morning' }], 'cron');
    refuse([{ flow: 'digest', cron: '0 9 * * *', timezone: 'Mars/Olympus' }], 'cron');
    refuse([{ flow: 'report', cron: '0 9 * * *' }], 'flow');
    refuse([{ flow: 'digest', cron: '0 9 * * *', catchUp: 'all' }], 'catchUp');
    refuse(
      [
        { flow: 'digest', cron: '0 9 * * *' },
        { flow: 'digest', cron: '0 17 * * *' },
      ],
      'name',
    );
    refuse('0 9 * * *', 'schedules');
  });
});
