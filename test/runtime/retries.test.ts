import { describe, expect, it } from 'vitest';
import { Agent, Crew, type StatecrewEvent, Task } from '../../src/index.js';
import { retryDelay } from '../../src/runtime/engine/backoff.js';
import {
  createManualClock,
  createScriptedModel,
  type ScriptedModel,
  type ScriptedReply,
} from '../../src/testing.js';

/** One task whose model replies from `replies` in order; the run on a manual clock. */
function oneTask(replies: ScriptedReply[], options: { retryDelayMs?: number; maxRetries?: number } = {}) {
  const llm = createScriptedModel(replies);
  const worker = new Agent({ role: 'W', llm, maxRetries: options.maxRetries ?? 2 });
  const task = new Task({
    name: 'flaky',
    description: 'x',
    agent: worker,
    retryDelayMs: options.retryDelayMs,
  });
  const clock = createManualClock();
  const crew = new Crew({ tasks: [task] });
  const start = (executionId = 'run-1', signal?: AbortSignal) => {
    const run = crew.run({ clock, executionId, signal });
    const events: StatecrewEvent[] = [];
    run.events$.subscribe((e) => events.push(e));
    return { run, events };
  };
  return { llm, clock, start };
}

const delays = (events: StatecrewEvent[]) =>
  events.flatMap((e) => (e.type === 'node.retrying' ? [e.delayMs] : []));

describe('retries with backoff', () => {
  it('waits 500 ms (±20%) before the first retry and doubles the wait for the second, on the run’s clock', async () => {
    const { llm, clock, start } = oneTask([new Error('flaky 1'), new Error('flaky 2'), 'ok']);
    const { run, events } = start();
    await clock.whenTimer();
    const [first] = delays(events) as [number];
    expect(first).toBeGreaterThanOrEqual(400);
    expect(first).toBeLessThanOrEqual(600);
    expect(llm.calls).toHaveLength(1);
    clock.advance(first - 1);
    expect(llm.calls).toHaveLength(1);
    clock.advance(1);
    await clock.whenTimer();
    expect(llm.calls).toHaveLength(2);
    const second = delays(events)[1] as number;
    expect(second).toBeGreaterThanOrEqual(800);
    expect(second).toBeLessThanOrEqual(1200);
    clock.advance(second);
    const out = await run.result;
    expect(out.status).toBe('completed');
    expect(out.nodes[0]).toMatchObject({ attempts: 3, durationMs: first + second });
  });

  it('draws the same jitter for the same run, node and attempt, so a scripted run replays exactly', async () => {
    const waits: number[][] = [];
    for (let i = 0; i < 2; i += 1) {
      const { clock, start } = oneTask([new Error('flaky'), 'ok']);
      const { run, events } = start('same-id');
      await clock.whenTimer();
      waits.push(delays(events));
      clock.advance(1_000);
      await run.result;
    }
    expect(waits[0]).toEqual(waits[1]);
    expect(retryDelay(500, 1, { message: '', retryable: true }, 'other-run/flaky/1')).not.toBe(waits[0]?.[0]);
  });

  it('lets a provider’s retry-after decide the wait', async () => {
    const limited = Object.assign(new Error('rate limited'), {
      status: 429,
      responseHeaders: { 'retry-after': '2' },
    });
    const { llm, clock, start } = oneTask([limited, 'ok']);
    const { run, events } = start();
    await clock.whenTimer();
    expect(delays(events)).toEqual([2_000]);
    clock.advance(1_999);
    expect(llm.calls).toHaveLength(1);
    clock.advance(1);
    expect((await run.result).status).toBe('completed');
  });

  it('never retries a 401: one call, the failure kept as not retryable', async () => {
    const denied = Object.assign(new Error('invalid api key'), { status: 401 });
    const { llm, clock, start } = oneTask([denied, 'never']);
    const out = await start().run.result;
    expect(llm.calls).toHaveLength(1);
    expect(clock.pending).toBe(0);
    expect(out.status).toBe('failed');
    expect(out.failures.flaky).toMatchObject({ message: 'invalid api key', retryable: false });
  });

  it('retries at once with retryDelayMs 0', async () => {
    const { llm, clock, start } = oneTask([new Error('flaky'), 'ok'], { retryDelayMs: 0 });
    const out = await start().run.result;
    expect(out.status).toBe('completed');
    expect(llm.calls).toHaveLength(2);
    expect(clock.pending).toBe(0);
  });

  it('counts every model call in the run’s usage, the failed ones too', async () => {
    const { llm, start } = oneTask([new Error('flaky 1'), new Error('flaky 2'), 'ok'], { retryDelayMs: 0 });
    const out = await start().run.result;
    expect(out.status).toBe('completed');
    expect(llm.calls).toHaveLength(3);
    expect(out.usage.calls).toBe(3);
    expect(out.nodes[0]?.usage.calls).toBe(3);
    expect(out.nodes[0]?.usage.outputTokens).toBe(1);
  });

  it('runs an async script function, and fails once, unretried and counted, on a script that gives no reply', async () => {
    const answered = createScriptedModel(async (request) => `done: ${request.prompt.length > 0}`);
    const task = (llm: ScriptedModel) =>
      new Task({ name: 'work', description: 'x', agent: new Agent({ role: 'W', llm }) });
    const out = await new Crew({ tasks: [task(answered)] }).kickoff();
    expect(out.status).toBe('completed');
    expect(out.raw).toBe('done: true');
    const silent = createScriptedModel(async () => undefined as unknown as string);
    const failed = await new Crew({ tasks: [task(silent)] }).kickoff();
    expect(failed.status).toBe('failed');
    expect(failed.failures.work).toMatchObject({
      code: 'invalid_model_response',
      retryable: false,
      message: 'Model of agent "W" returned nothing (undefined) instead of text (invalid_model_response)',
    });
    expect(silent.calls).toHaveLength(1);
    expect(failed.usage.calls).toBe(1);
  });

  it('cancels a pending backoff when the run is aborted', async () => {
    const { llm, clock, start } = oneTask([new Error('flaky'), 'ok']);
    const controller = new AbortController();
    const { run } = start('run-1', controller.signal);
    await clock.whenTimer();
    controller.abort('stop');
    await expect(run.result).rejects.toMatchObject({ code: 'aborted', cause: 'stop' });
    expect(clock.pending).toBe(0);
    clock.advance(60_000);
    expect(llm.calls).toHaveLength(1);
  });

  it('doubles from the base, jitters within ±20% and caps every computed wait at 30 s', () => {
    const failure = { message: 'x', retryable: true };
    for (let attempt = 1; attempt <= 4; attempt += 1) {
      const wait = retryDelay(1_000, attempt, failure, `seed/${attempt}`);
      expect(wait).toBeGreaterThanOrEqual(0.8 * 1_000 * 2 ** (attempt - 1));
      expect(wait).toBeLessThanOrEqual(1.2 * 1_000 * 2 ** (attempt - 1));
    }
    expect(retryDelay(20_000, 2, failure, 's')).toBeLessThanOrEqual(30_000);
    expect(retryDelay(20_000, 9, failure, 's')).toBeLessThanOrEqual(30_000);
    expect(retryDelay(20_000, 9, failure, 's')).toBeGreaterThanOrEqual(24_000);
    expect(retryDelay(500, 1, { ...failure, retryAfterMs: 45_000 }, 's')).toBe(45_000);
  });
});
