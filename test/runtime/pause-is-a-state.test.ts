import { SpanStatusCode } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { plainProgress } from '../../src/cli/progress.js';
import {
  Agent,
  Crew,
  createFlow,
  ExecutionDocument,
  MemoryStore,
  type StatecrewEvent,
  Task,
} from '../../src/index.js';
import { traceRun } from '../../src/otel.js';
import { createManualClock } from '../../src/testing.js';

/** A crew whose second task's output waits for a human's review. */
function reviewedCrew(store: MemoryStore) {
  const writer = new Agent({ role: 'Writer', llm: () => 'report text' });
  return new Crew({
    name: 'reports',
    store,
    tasks: [
      new Task({ name: 'research_task', description: 'Research', agent: writer }),
      new Task({ name: 'reporting_task', description: 'Report', agent: writer, humanInput: true }),
    ],
  });
}

describe('a task waiting for a human is waiting, not failed', () => {
  it('says so on events$, in OpenTelemetry, on the CLI and in the stored result', async () => {
    const store = new MemoryStore();
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    const run = reviewedCrew(store).run({ executionId: 'r1' });
    const events: StatecrewEvent[] = [];
    run.events$.subscribe((event) => events.push(event));
    const lines: string[] = [];
    const progress = plainProgress({ write: (text) => lines.push(text) }, 'r1');
    run.events$.subscribe((event) => progress.event(event));
    const traced = traceRun(run, { tracer: provider.getTracer('test') });
    const out = await run.result;
    await traced.done;

    expect(out.status).toBe('paused');
    expect(events.filter((e) => e.type === 'node.failed')).toEqual([]);
    expect(events.find((e) => e.type === 'node.waiting')).toMatchObject({
      nodeId: 'reporting_task',
      attempt: 1,
      waitingFor: { kind: 'review', output: { raw: 'report text' } },
    });
    const span = exporter
      .getFinishedSpans()
      .find(
        (s) => s.name === 'invoke_agent Writer' && s.attributes['statecrew.node.id'] === 'reporting_task',
      );
    expect(span?.status.code).toBe(SpanStatusCode.UNSET);
    expect(span?.attributes['statecrew.node.waiting_for']).toBe('review');
    expect(span?.attributes['error.type']).toBeUndefined();
    expect(lines).toContain('reporting_task waits for a review of its output\n');
    expect(lines.join('')).not.toContain('failed');
    const doc = await ExecutionDocument.fromStore(store, 'r1');
    expect(doc?.results.find((r) => r.nodeId === 'reporting_task')).toMatchObject({
      status: 'paused',
      waiting: { kind: 'review' },
    });
    expect(doc?.results.find((r) => r.nodeId === 'reporting_task')?.error).toBeUndefined();
  });

  it('tells of every wait of a flow: a human step, an outside event, a sleep', async () => {
    const clock = createManualClock(1000);
    const store = new MemoryStore();
    const flow = createFlow({ name: 'waits', initialState: {}, store, clock })
      .start('start', () => 'go')
      .human('approval', 'start', { routes: ['yes', 'no'], prompt: 'Ship it?' })
      .wait('payment', 'start', { event: 'paid', timeoutMs: 5000 })
      .sleep('cool_off', 'start', { ms: 60_000 });
    const run = flow.run({ inputs: { id: 'w1' } });
    const waits: StatecrewEvent[] = [];
    run.events$.subscribe((event) => {
      if (event.type === 'node.waiting') waits.push(event);
      // The sleep waits on the run's clock: once it told of its wait, its time comes.
      if (event.type === 'node.waiting' && event.waitingFor.kind === 'sleep') clock.advance(60_000);
    });
    const out = await run.result;
    expect(out.status).toBe('paused');
    expect(waits.map((e) => (e.type === 'node.waiting' ? [e.nodeId, e.waitingFor] : []))).toEqual([
      ['approval', { kind: 'human', prompt: 'Ship it?', routes: ['yes', 'no'] }],
      ['payment', { kind: 'event', event: 'paid', timeoutAt: 6000 }],
      ['cool_off', { kind: 'sleep', wakeAt: 61_000 }],
    ]);
    expect(out.trail).toEqual(['start', 'cool_off']);
  });
});
