import { context, type HrTime, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  Agent,
  Crew,
  createFlow,
  defineTool,
  failed,
  MemoryStore,
  type StatecrewEvent,
  Task,
} from '../src/index.js';
import { modelsOf, traceRun } from '../src/otel.js';
import {
  createManualClock,
  createScriptedModel,
  type ManualClock,
  type ScriptedReply,
} from '../src/testing.js';
import { agent, echoModel, gatedModel, tickingClock } from './helpers.js';

/** A tracer that keeps its finished spans in memory, registered nowhere. */
function memoryTracer() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return { tracer: provider.getTracer('test'), spans: () => exporter.getFinishedSpans() };
}

const { ERROR } = SpanStatusCode;
const ms = (time: HrTime) => time[0] * 1000 + time[1] / 1e6;
const idOf = (span: ReadableSpan) => span.spanContext().spanId;
const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;
const named = (spans: readonly ReadableSpan[], name: string) => spans.filter((s) => s.name === name);
const childrenOf = (spans: readonly ReadableSpan[], parent: ReadableSpan) =>
  spans.filter((s) => parentOf(s) === idOf(parent));

function one(spans: readonly ReadableSpan[], name: string): ReadableSpan {
  const found = named(spans, name);
  expect(found, name).toHaveLength(1);
  return found[0] as ReadableSpan;
}

/** Every event of a run, as it went by. */
function recorded(run: { events$: { subscribe(next: (e: StatecrewEvent) => void): unknown } }) {
  const events: StatecrewEvent[] = [];
  run.events$.subscribe((e) => events.push(e));
  return events;
}

const eventOf = <T extends StatecrewEvent['type']>(events: StatecrewEvent[], type: T, nodeId?: string) =>
  events.filter(
    (e): e is Extract<StatecrewEvent, { type: T }> =>
      e.type === type && (nodeId === undefined || ('nodeId' in e && e.nodeId === nodeId)),
  );

/** A scripted model with an id, as a price table names it. */
const modelWithId = (script: ScriptedReply[], id = 'openai:gpt-4.1-mini') =>
  Object.assign(createScriptedModel(script), { id });

describe('traceRun', () => {
  it("marks an agent's delegation and its coworker's reply on the run span", async () => {
    const { tracer, spans } = memoryTracer();
    const writer = new Agent({
      role: 'Writer',
      allowDelegation: true,
      llm: createScriptedModel([
        {
          text: '',
          toolCalls: [{ id: 'd', name: 'ask_question', args: { coworker: 'Editor', question: 'OK?' } }],
        },
        'done',
      ]),
    });
    const editor = new Agent({ role: 'Editor', llm: createScriptedModel(['fine']) });
    const crew = new Crew({
      agents: [writer, editor],
      tasks: [new Task({ name: 'w', description: 'Write', agent: writer })],
    });
    const run = crew.run();
    const traced = traceRun(run, { tracer, name: 'crew' });
    await run.result;
    await traced.done;
    const root = one(spans(), 'crew crew');
    expect(root.events.map((e) => [e.name, e.attributes])).toEqual([
      [
        'statecrew.delegation',
        {
          'statecrew.node.id': 'w',
          'gen_ai.agent.name': 'Editor',
          'statecrew.delegation.kind': 'ask',
          'statecrew.delegation.from': 'Writer',
        },
      ],
      [
        'statecrew.delegation.replied',
        {
          'statecrew.node.id': 'w',
          'gen_ai.agent.name': 'Editor',
          'statecrew.delegation.kind': 'ask',
          'statecrew.delegation.from': 'Writer',
        },
      ],
    ]);
  });

  it('traces a hierarchical crew as a run span over manager, task-run and model-call spans', async () => {
    const { tracer, spans } = memoryTracer();
    const researcher = new Agent({
      role: 'Researcher',
      llm: modelWithId([{ text: 'facts', usage: { inputTokens: 11, outputTokens: 3, costUsd: 0.01 } }]),
    });
    const writer = new Agent({
      role: 'Writer',
      llm: modelWithId([{ text: 'draft', usage: { inputTokens: 20, outputTokens: 7 } }], 'local-model'),
    });
    const manager = new Agent({
      role: 'Manager',
      llm: createScriptedModel([
        { text: 'Researcher', usage: { inputTokens: 5, outputTokens: 1 } },
        { text: 'Writer', usage: { inputTokens: 6, outputTokens: 1 } },
        { text: 'the report', usage: { inputTokens: 9, outputTokens: 2 } },
      ]),
    });
    const crew = new Crew({
      name: 'research',
      agents: [researcher, writer],
      tasks: [
        new Task({ name: 'research', description: 'Research AI' }),
        new Task({ name: 'write', description: 'Write it up' }),
      ],
      process: 'hierarchical',
      manager,
      goal: 'A report',
    });
    const run = crew.run({ clock: tickingClock(), executionId: 'exec-1' });
    const traced = traceRun(run, { tracer, name: crew.name, models: modelsOf(crew) });
    const events = recorded(run);
    const out = await run.result;
    await traced.done;
    const all = spans();

    const root = one(all, 'crew research');
    expect(parentOf(root)).toBeUndefined();
    expect(new Set(all.map((s) => s.spanContext().traceId)).size).toBe(1);
    expect(root.attributes).toMatchObject({
      'statecrew.run.id': 'exec-1',
      'statecrew.run.name': 'research',
      'statecrew.process': 'hierarchical',
      'statecrew.run.status': 'completed',
      'gen_ai.usage.input_tokens': out.usage.inputTokens,
      'gen_ai.usage.output_tokens': out.usage.outputTokens,
      'statecrew.usage.calls': out.usage.calls,
      'statecrew.cost_usd': 0.01,
    });
    const [started] = eventOf(events, 'run.started');
    const [completed] = eventOf(events, 'run.completed');
    expect([ms(root.startTime), ms(root.endTime)]).toEqual([started?.at, completed?.at]);

    expect(childrenOf(all, root).map((s) => s.name)).toEqual([
      'manager allocate',
      'invoke_agent Researcher',
      'manager allocate',
      'invoke_agent Writer',
      'manager synthesize',
    ]);
    const [allocate, , , , synthesize] = childrenOf(all, root) as ReadableSpan[];
    expect(allocate?.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'manager',
      'statecrew.manager.phase': 'allocate',
      'gen_ai.usage.input_tokens': 5,
      'gen_ai.usage.output_tokens': 1,
    });
    expect(synthesize?.attributes).toMatchObject({ 'gen_ai.usage.input_tokens': 9 });
    // A manager call spans from the run's previous event to its own.
    const managerCalls = eventOf(events, 'manager.call');
    expect(ms(allocate?.endTime as HrTime)).toBe(managerCalls[0]?.at);
    expect(ms(allocate?.startTime as HrTime)).toBe(started?.at);
    expect(root.events.map((e) => [e.name, e.attributes?.['gen_ai.agent.name']])).toEqual([
      ['statecrew.delegation', 'Researcher'],
      ['statecrew.delegation', 'Writer'],
    ]);

    const research = one(all, 'invoke_agent Researcher');
    expect(research.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'Researcher',
      'gen_ai.request.model': 'gpt-4.1-mini',
      'gen_ai.provider.name': 'openai',
      'statecrew.node.id': 'research',
      'statecrew.task.name': 'research',
      'statecrew.attempt': 1,
      'statecrew.attempts': 1,
      'gen_ai.usage.input_tokens': 11,
      'gen_ai.usage.output_tokens': 3,
      'statecrew.cost_usd': 0.01,
    });
    const [nodeStarted] = eventOf(events, 'node.started', 'research');
    const [nodeCompleted] = eventOf(events, 'node.completed', 'research');
    expect([ms(research.startTime), ms(research.endTime)]).toEqual([nodeStarted?.at, nodeCompleted?.at]);

    const [chat] = childrenOf(all, research);
    expect(chat?.name).toBe('chat gpt-4.1-mini');
    expect(chat?.kind).toBe(SpanKind.CLIENT);
    expect(chat?.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'gpt-4.1-mini',
      'gen_ai.usage.input_tokens': 11,
      'gen_ai.usage.output_tokens': 3,
      'statecrew.cost_usd': 0.01,
      'statecrew.attempt': 1,
    });
    const [call] = eventOf(events, 'model.call', 'research');
    expect([ms(chat?.startTime as HrTime), ms(chat?.endTime as HrTime)]).toEqual([
      (call?.at ?? 0) - (call?.durationMs ?? 0),
      call?.at,
    ]);
    const write = one(all, 'invoke_agent Writer');
    expect(childrenOf(all, write).map((s) => [s.name, s.attributes['gen_ai.provider.name']])).toEqual([
      ['chat local-model', undefined],
    ]);
  });

  it('traces a loop judge’s verdicts as spans of the run', async () => {
    const { tracer, spans } = memoryTracer();
    const polisher = agent('Polisher', echoModel());
    const crew = new Crew({
      tasks: [new Task({ name: 'polish', description: 'Polish it', agent: polisher })],
      process: 'loop',
      loop: { condition: 'it shines', judge: createScriptedModel(['NO', 'YES']), maxIterations: 3 },
    });
    const run = crew.run({ clock: tickingClock() });
    const traced = traceRun(run, { tracer });
    await run.result;
    await traced.done;
    const all = spans();
    const root = one(all, 'crew loop');
    expect(childrenOf(all, root).map((s) => [s.name, s.attributes['statecrew.judge.verdict']])).toEqual([
      ['invoke_agent Polisher', undefined],
      ['judge', 'no'],
      ['invoke_agent Polisher', undefined],
      ['judge', 'yes'],
    ]);
    expect(named(all, 'judge')[0]?.attributes).toMatchObject({
      'gen_ai.agent.name': 'judge',
      'statecrew.loop.iteration': 1,
    });
  });

  it('marks a task run that failed for good ERROR with its code, its retry as span events', async () => {
    const { tracer, spans } = memoryTracer();
    const flaky = new Agent({
      role: 'Flaky',
      llm: createScriptedModel([new Error('overloaded')]),
      maxRetries: 1,
    });
    const first = new Task({ name: 'first', description: 'x', agent: flaky, retryDelayMs: 0 });
    const second = new Task({ name: 'second', description: 'y', agent: flaky });
    const run = new Crew({ tasks: [first, second] }).run({ clock: tickingClock() });
    const traced = traceRun(run, { tracer });
    const events = recorded(run);
    const out = await run.result;
    await traced.done;
    const all = spans();
    expect(out.failures.first?.code).toBe('script_exhausted');

    const node = one(all, 'invoke_agent Flaky');
    expect(node.status).toMatchObject({ code: ERROR, message: out.errors.first });
    expect(node.attributes).toMatchObject({ 'error.type': 'script_exhausted', 'statecrew.attempts': 2 });
    expect(node.events.map((e) => [e.name, e.attributes?.['statecrew.attempt']])).toEqual([
      ['statecrew.attempt.failed', 1],
      ['statecrew.node.retrying', 2],
    ]);
    expect(node.events[0]?.attributes?.['error.type']).toBe('_OTHER');
    const [failed] = eventOf(events, 'node.failed', 'first').filter((e) => !e.willRetry);
    expect(ms(node.endTime)).toBe(failed?.at);
    expect(childrenOf(all, node).map((s) => [s.name, s.status.code, s.attributes['error.type']])).toEqual([
      ['chat', ERROR, '_OTHER'],
      ['chat', ERROR, 'script_exhausted'],
    ]);

    const root = one(all, 'crew sequential');
    expect(out.status).toBe('failed');
    expect(root.attributes).toMatchObject({
      'statecrew.run.status': 'failed',
      'error.type': 'script_exhausted',
    });
    expect(root.status.code).toBe(ERROR);
    expect(root.events.map((e) => [e.name, e.attributes?.['statecrew.node.id']])).toEqual([
      ['statecrew.node.blocked', 'second'],
    ]);
  });

  it('makes tool calls children of their task run’s span, from the model call that asked for them', async () => {
    const { tracer, spans } = memoryTracer();
    const search = defineTool({
      name: 'search',
      description: 'Search the web',
      input: z.object({ query: z.string() }),
      execute: ({ query }) => `results for ${query}`,
    });
    const llm = createScriptedModel([
      {
        text: '',
        toolCalls: [
          { id: 'c1', name: 'search', args: { query: 'otel' } },
          { id: 'c2', name: 'delete_all', args: {} },
        ],
      },
      'done',
    ]);
    const searcher = new Agent({ role: 'Searcher', llm, tools: [search] });
    const run = new Crew({ tasks: [new Task({ name: 'find', description: 'Find', agent: searcher })] }).run({
      clock: tickingClock(),
    });
    const traced = traceRun(run, { tracer });
    const events = recorded(run);
    await run.result;
    await traced.done;
    const all = spans();

    const node = one(all, 'invoke_agent Searcher');
    expect(childrenOf(all, node).map((s) => s.name)).toEqual([
      'chat',
      'execute_tool search',
      'execute_tool delete_all',
      'chat',
    ]);
    const [searched, refused] = [one(all, 'execute_tool search'), one(all, 'execute_tool delete_all')];
    expect(searched.attributes).toEqual({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'search',
      'statecrew.node.id': 'find',
    });
    expect(searched.status.code).toBe(SpanStatusCode.UNSET);
    expect(refused.status.code).toBe(ERROR);
    expect(refused.attributes['error.type']).toBe('_OTHER');
    const [askedForTools] = eventOf(events, 'model.call', 'find');
    const toolCalls = eventOf(events, 'tool.call', 'find');
    expect([ms(searched.startTime), ms(searched.endTime)]).toEqual([askedForTools?.at, toolCalls[0]?.at]);
    expect([ms(refused.startTime), ms(refused.endTime)]).toEqual([toolCalls[0]?.at, toolCalls[1]?.at]);
  });

  it('nests a crew run inside a flow step under the step’s span', async () => {
    const { tracer, spans } = memoryTracer();
    const triager = agent('Triager', echoModel());
    const crew = new Crew({
      tasks: [
        new Task({ name: 'classify', description: 'Classify {ticket}', agent: triager }),
        new Task({ name: 'summarize', description: 'Summarize {ticket}', agent: triager }),
      ],
    });
    const flow = createFlow({ name: 'support', initialState: { ticket: 'refund #12' } })
      .start(
        'triage',
        async ({ state, kickoff }) => (await kickoff(crew, { inputs: { ticket: state.ticket } })).raw,
      )
      .listen('reply', 'triage', ({ payload }) => `Reply based on: ${String(payload)}`);
    const run = flow.run({ clock: tickingClock() });
    const traced = traceRun(run, { tracer, name: flow.name });
    const events = recorded(run);
    await run.result;
    await traced.done;
    const all = spans();

    const root = one(all, 'flow support');
    expect(root.attributes).toMatchObject({
      'statecrew.run.id': run.id,
      'statecrew.process': 'flow',
      'statecrew.run.status': 'completed',
      'statecrew.usage.calls': 2,
    });
    expect(childrenOf(all, root).map((s) => s.name)).toEqual(['step triage', 'step reply']);
    const triage = one(all, 'step triage');
    expect(triage.attributes).toMatchObject({ 'statecrew.step.run': 1, 'statecrew.node.id': 'triage' });
    const [stepStarted, stepCompleted] = eventOf(events, 'flow.step').filter((e) => e.name === 'triage');
    expect([ms(triage.startTime), ms(triage.endTime)]).toEqual([stepStarted?.at, stepCompleted?.at]);

    const inner = one(all, 'crew sequential');
    expect(parentOf(inner)).toBe(idOf(triage));
    const crewId = eventOf(events, 'run.started').find((e) => e.step === 'triage')?.runId;
    expect(inner.attributes).toMatchObject({ 'statecrew.run.id': crewId, 'statecrew.step.name': 'triage' });
    expect(ms(inner.startTime)).toBeGreaterThanOrEqual(ms(triage.startTime));
    expect(ms(inner.endTime)).toBeLessThanOrEqual(ms(triage.endTime));
    expect(childrenOf(all, inner).map((s) => s.name)).toEqual([
      'invoke_agent Triager',
      'invoke_agent Triager',
    ]);
    for (const node of childrenOf(all, inner))
      expect(childrenOf(all, node).map((s) => s.name)).toEqual(['chat']);
    expect(root.events.map((e) => e.name)).toEqual(['statecrew.flow.round', 'statecrew.flow.round']);
  });

  it('records a human step’s pause as a span event of the flow, and the route that led there', async () => {
    const { tracer, spans } = memoryTracer();
    const flow = createFlow({ name: 'refund', initialState: { amount: 0 }, store: new MemoryStore() })
      .start('check', ({ state }) => state.amount)
      .router('size', 'check', ({ state }) => (state.amount > 100 ? 'large' : 'small'), {
        routes: ['small', 'large'],
      })
      .human('approval', 'large', { routes: ['approved', 'rejected'] })
      .listen('pay', 'approved', () => 'paid');
    const run = flow.run({ inputs: { id: 'r-1', amount: 250 }, clock: tickingClock() });
    const traced = traceRun(run, { tracer, name: flow.name });
    const events = recorded(run);
    expect((await run.result).status).toBe('paused');
    await traced.done;
    const all = spans();

    const root = one(all, 'flow refund');
    expect(root.attributes['statecrew.run.status']).toBe('paused');
    expect(root.status.code).toBe(SpanStatusCode.UNSET);
    expect(childrenOf(all, root).map((s) => s.name)).toEqual(['step check', 'step size']);
    const paused = root.events.find((e) => e.name === 'statecrew.flow.paused');
    expect(paused?.attributes).toEqual({ 'statecrew.flow.waiting': ['approval'] });
    expect(ms(paused?.time as HrTime)).toBe(eventOf(events, 'flow.paused')[0]?.at);
    expect(root.events.find((e) => e.name === 'statecrew.flow.route')?.attributes).toEqual({
      'statecrew.flow.router': 'size',
      'statecrew.flow.route': 'large',
    });
  });

  it('traces a retried step as one span with a retry event per retry', async () => {
    const { tracer, spans } = memoryTracer();
    let calls = 0;
    const flow = createFlow({ name: 'charge', initialState: {} }).start(
      'charge',
      () => {
        calls += 1;
        if (calls === 1) throw Object.assign(new Error('busy'), { status: 503 });
        return 'paid';
      },
      { retries: 1, retryDelayMs: 0 },
    );
    const run = flow.run({ clock: tickingClock() });
    const traced = traceRun(run, { tracer, name: flow.name });
    expect((await run.result).status).toBe('completed');
    await traced.done;
    const [step, ...more] = named(spans(), 'step charge');
    expect(more).toEqual([]);
    expect(step?.status.code).not.toBe(ERROR);
    expect(step?.events.map((e) => [e.name, e.attributes])).toEqual([['retry', { attempt: 2, delayMs: 0 }]]);
  });

  it('ends the spans of an aborted run’s task runs with the run, failed as aborted', async () => {
    const { tracer, spans } = memoryTracer();
    const gate = gatedModel();
    const crew = new Crew({
      tasks: [new Task({ name: 'a', description: 'a', agent: agent('Slow', gate.model) })],
    });
    const controller = new AbortController();
    const run = crew.run({ signal: controller.signal, clock: tickingClock() });
    const traced = traceRun(run, { tracer });
    const events = recorded(run);
    await gate.whenCalled('a');
    controller.abort(new Error('shutting down'));
    await expect(run.result).rejects.toMatchObject({ code: 'aborted' });
    await traced.done;
    const all = spans();
    const root = one(all, 'crew sequential');
    const node = one(all, 'invoke_agent Slow');
    expect([root.status.code, root.attributes['error.type']]).toEqual([ERROR, 'aborted']);
    expect([node.status.code, node.attributes['error.type']]).toEqual([ERROR, 'aborted']);
    const [failed] = eventOf(events, 'run.failed');
    expect([ms(node.endTime), ms(root.endTime)]).toEqual([failed?.at, failed?.at]);
  });

  it('works with no tracer and no SDK registered: nothing is recorded, the run is untouched', async () => {
    const { spans } = memoryTracer();
    const run = new Crew({
      tasks: [new Task({ name: 't', description: 'x', agent: agent('A', echoModel()) })],
    }).run();
    const traced = traceRun(run);
    await traced.done;
    expect((await run.result).status).toBe('completed');
    expect(spans()).toEqual([]);
    traced.unsubscribe(); // idempotent
  });

  it('records prompts, contexts, outputs and tool arguments only with captureContent', async () => {
    const echo = defineTool({
      name: 'echo',
      description: 'Echo',
      input: z.object({ secret: z.number() }),
      execute: (args) => JSON.stringify(args),
    });
    const crewOf = () => {
      const llm = createScriptedModel([
        { text: '', toolCalls: [{ id: 'c', name: 'echo', args: { secret: 1 } }] },
        'out',
      ]);
      const worker = new Agent({ role: 'W', llm, tools: [echo] });
      const a = new Task({ name: 'a', description: 'First', agent: worker });
      return new Crew({
        tasks: [
          a,
          new Task({ name: 'b', description: 'Second', agent: agent('V', echoModel()), context: [a] }),
        ],
      });
    };
    const contentKeys = [
      'statecrew.task.prompt',
      'statecrew.task.context',
      'statecrew.task.output',
      'gen_ai.tool.call.arguments',
      'gen_ai.tool.call.result',
    ];
    const keysOf = (all: readonly ReadableSpan[]) =>
      new Set(all.flatMap((s) => Object.keys(s.attributes)).filter((k) => contentKeys.includes(k)));

    const off = memoryTracer();
    const plain = crewOf().run();
    const tracedOff = traceRun(plain, { tracer: off.tracer });
    await plain.result;
    await tracedOff.done;
    expect(keysOf(off.spans())).toEqual(new Set());

    const on = memoryTracer();
    const full = crewOf().run();
    const tracedOn = traceRun(full, { tracer: on.tracer, captureContent: true });
    await full.result;
    await tracedOn.done;
    expect(keysOf(on.spans())).toEqual(new Set(contentKeys));
    const b = one(on.spans(), 'invoke_agent V');
    expect(b.attributes['statecrew.task.context']).toBe('out');
    expect(String(b.attributes['statecrew.task.prompt'])).toContain('Task: Second');
    expect(one(on.spans(), 'execute_tool echo').attributes['gen_ai.tool.call.arguments']).toBe(
      '{"secret":1}',
    );
  });

  it('starts the run’s span in the given parent context', async () => {
    const { tracer, spans } = memoryTracer();
    const request = tracer.startSpan('POST /report');
    const run = new Crew({
      tasks: [new Task({ name: 't', description: 'x', agent: agent('A', echoModel()) })],
    }).run();
    const traced = traceRun(run, { tracer, parentContext: trace.setSpan(context.active(), request) });
    await run.result;
    await traced.done;
    request.end();
    const root = one(spans(), 'crew sequential');
    expect(parentOf(root)).toBe(request.spanContext().spanId);
    expect(root.spanContext().traceId).toBe(request.spanContext().traceId);
  });
});

describe('traceRun on flows that handle failures, wait and sleep', () => {
  const HOUR = 3_600_000;

  /** A payment flow: it waits a day for the payment (else reminds), then cools off an hour. */
  function paymentFlow(store: MemoryStore, clock: ManualClock) {
    return createFlow({ name: 'payment', initialState: {}, store, clock })
      .start('invoice', () => 'invoice sent')
      .wait('payment', 'invoice', { event: 'payment.received', timeoutMs: 24 * HOUR, onTimeout: 'late' })
      .listen('remind', 'late', () => 'reminded')
      .sleep('cool_off', 'payment', { ms: HOUR })
      .listen('thank', 'cool_off', () => 'thanks');
  }

  it('marks a handled failure on its step span, and leaves the run’s span without an error', async () => {
    const { tracer, spans } = memoryTracer();
    const flow = createFlow({ name: 'order', initialState: {} })
      .start(
        'charge',
        () => {
          throw Object.assign(new Error('card network down'), { status: 503, code: 'network' });
        },
        { retries: 1, retryDelayMs: 0 },
      )
      .listen('refund', failed('charge'), () => 'refunded');
    const run = flow.run({ clock: tickingClock() });
    const traced = traceRun(run, { tracer, name: flow.name });
    expect((await run.result).status).toBe('completed');
    await traced.done;
    const all = spans();
    const charge = one(all, 'step charge');
    expect(charge.status.code).toBe(ERROR);
    expect(charge.attributes).toMatchObject({ 'statecrew.step.handled': true, 'error.type': 'network' });
    expect(charge.events.map((e) => e.name)).toEqual(['retry']);
    expect(one(all, 'step refund').attributes['statecrew.step.handled']).toBeUndefined();
    const root = one(all, 'flow order');
    expect(root.attributes['statecrew.run.status']).toBe('completed');
    expect(root.status.code).toBe(SpanStatusCode.UNSET);
    expect(root.attributes['error.type']).toBeUndefined();
  });

  it('says on a paused run’s span what it waits for: the steps, their events and the earliest deadline', async () => {
    const { tracer, spans } = memoryTracer();
    const clock = createManualClock();
    const flow = paymentFlow(new MemoryStore(), clock);
    const run = flow.run({ inputs: { id: 'p-1' } });
    const traced = traceRun(run, { tracer, name: flow.name });
    expect((await run.result).status).toBe('paused');
    await traced.done;
    const root = one(spans(), 'flow payment');
    const waitsFor = {
      'statecrew.flow.waiting': ['payment'],
      'statecrew.flow.waiting_events': ['payment.received'],
      'statecrew.flow.timeout_at': new Date(clock.now() + 24 * HOUR).toISOString(),
    };
    expect(root.attributes).toMatchObject({ 'statecrew.run.status': 'paused', ...waitsFor });
    expect(root.events.find((e) => e.name === 'statecrew.flow.paused')?.attributes).toEqual(waitsFor);
  });

  it('marks a signal and a sleep (with its wake time) on the run’s span, and a timeout', async () => {
    const store = new MemoryStore();
    const clock = createManualClock();
    const flow = paymentFlow(store, clock);
    await flow.kickoff({ inputs: { id: 'p-2' } });
    await flow.kickoff({ inputs: { id: 'p-3' } });
    const signaled = memoryTracer();
    const traces: Promise<void>[] = [];
    let events: StatecrewEvent[] = [];
    const result = flow.signal(
      'p-2',
      'payment.received',
      { amount: 42 },
      {
        onRun: (r) => {
          traces.push(traceRun(r, { tracer: signaled.tracer, name: flow.name }).done);
          events = recorded(r);
        },
      },
    );
    while (!events.some((e) => e.type === 'flow.sleeping')) await new Promise((r) => setImmediate(r));
    const wakeAt = clock.now() + HOUR;
    clock.advance(HOUR);
    expect((await result).status).toBe('completed');
    await Promise.all(traces);
    const marked = one(signaled.spans(), 'flow payment').events.map((e) => [e.name, e.attributes]);
    expect(marked.filter(([name]) => name !== 'statecrew.flow.round')).toEqual([
      [
        'statecrew.flow.signaled',
        { 'statecrew.step.name': 'payment', 'statecrew.flow.event': 'payment.received' },
      ],
      [
        'statecrew.flow.sleeping',
        {
          'statecrew.step.name': 'cool_off',
          'statecrew.node.id': 'cool_off',
          'statecrew.flow.wake_at': new Date(wakeAt).toISOString(),
        },
      ],
    ]);

    clock.advance(24 * HOUR);
    const timedOut = memoryTracer();
    const late = await flow.resume('p-3', undefined, {
      onRun: (r) => traces.push(traceRun(r, { tracer: timedOut.tracer, name: flow.name }).done),
    });
    expect(late.trail).toEqual(['invoice', 'payment', 'remind']);
    await Promise.all(traces);
    const root = one(timedOut.spans(), 'flow payment');
    expect(root.events.find((e) => e.name === 'statecrew.flow.timed_out')?.attributes).toEqual({
      'statecrew.step.name': 'payment',
    });
  });
});
