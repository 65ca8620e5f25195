/*
 * CrewAI's lib/crewai/tests/test_task_guardrails.py (commit CREWAI_COMMIT), the tests that replay no
 * recorded model calls, ported.
 *
 * How statecrew's constructs map to CrewAI's:
 * - A mocked agent (`agent.execute_task.return_value` / `side_effect`) → an `Agent` of that role whose
 *   model is a scripted one answering the same texts (`createScriptedModel`).
 * - `task.execute_sync(agent=agent)` → a crew of that one task, run (`new Crew({ tasks: [task] }).run()`);
 *   returning a `TaskOutput` → the run completing, `result.raw` → `out.raw`.
 * - `guardrail=` / `guardrails=[...]` → the one `guardrail` option, a function or a list applied in
 *   order; a guardrail's `(True, value)` → `{ ok: true, value }`, `(False, error)` → `{ ok: false,
 *   reason }` (docs/crews.md); a text guardrail (`"Ensure ..."`) → `modelGuardrail("Ensure ...")`.
 * - `guardrail_max_retries=n` → `maxRetries: n` (attempts after the first; statecrew counts model
 *   errors against it too); retries are immediate here (`retryDelayMs: 0`).
 * - `task.retry_count` → the run's `node.retrying` events; `task._guardrail_retry_counts.get(i)` →
 *   the retries after a rejection with guardrail `i`'s reason.
 */
import { expect } from 'vitest';
import { z } from 'zod';
import {
  Agent,
  Crew,
  type CrewOutput,
  type Guardrail,
  modelGuardrail,
  type StatecrewEvent,
  Task,
  type TaskOptions,
} from '../../../src/index.js';
import { createScriptedModel } from '../../../src/testing.js';
import { difference, peer } from './peer.js';

const FILE = 'test_task_guardrails.py';
/** The node id of a crew's only task when it has no name. */
const NODE = 'task-1';

/** A mocked agent: `role`, and a model answering every call with one text, texts in call order, or a function's. */
function mockAgent(role: string, answers: string | readonly string[] | (() => string)) {
  const llm = createScriptedModel(typeof answers === 'string' ? () => answers : answers);
  return { agent: new Agent({ role, llm }), llm };
}

/** CrewAI's `create_smart_task(**kwargs)`, its retries immediate. */
function createSmartTask(options: TaskOptions): Task {
  return new Task({ retryDelayMs: 0, ...options });
}

/** CrewAI's `task.execute_sync(agent=agent)`: the task run alone, its events kept. */
function executeSync(task: Task) {
  const run = new Crew({ tasks: [task] }).run();
  const events: StatecrewEvent[] = [];
  run.events$.subscribe((event) => events.push(event));
  return {
    result: run.result,
    /** CrewAI's `task.retry_count`. */
    retryCount: () => events.filter((event) => event.type === 'node.retrying').length,
    /** The retries after a rejection giving `reason`: CrewAI's retry count of that guardrail. */
    retriesAfter: (reason: string) =>
      events.filter(
        (event) => event.type === 'node.failed' && event.willRetry && event.error.includes(reason),
      ).length,
  };
}

/** `execute_sync` returned a `TaskOutput`: the task completed. */
function completed(out: CrewOutput): CrewOutput {
  expect(out.status).toBe('completed');
  return out;
}

/** A guardrail's `(True, value)`. */
const accept = (value: string) => ({ ok: true as const, value });
/** A guardrail's `(False, error)`. */
const reject = (reason: string) => ({ ok: false as const, reason });

peer(`${FILE}::test_task_without_guardrail`, async () => {
  const { agent } = mockAgent('test_agent', 'test result');
  const task = createSmartTask({ description: 'Test task', expectedOutput: 'Output', agent });

  const result = completed(await executeSync(task).result);
  expect(result.raw).toBe('test result');
});

peer(`${FILE}::test_task_with_successful_guardrail_func`, async () => {
  const guardrail: Guardrail = (result) => accept(result.raw.toUpperCase());
  const { agent } = mockAgent('test_agent', 'test result');
  const task = createSmartTask({ description: 'Test task', expectedOutput: 'Output', guardrail, agent });

  const result = completed(await executeSync(task).result);
  expect(result.raw).toBe('TEST RESULT');
});

/** What statecrew does when a task's guardrail rejects every attempt: the run resolves, failed. */
async function failsWithGuardrail(run: ReturnType<typeof executeSync>, reason: string, retries: number) {
  const out = await run.result;
  expect(out.status).toBe('failed');
  expect(out.failures[NODE]).toMatchObject({
    code: 'guardrail_failed',
    retryable: false,
    message: expect.stringContaining(`the last reason: ${reason}`),
  });
  expect(out.nodes[0]?.attempts).toBe(retries + 1);
  expect(run.retryCount()).toBe(retries);
}

/** The failing guardrail task of `test_task_with_failing_guardrail`. */
function failingGuardrailTask() {
  const guardrail: Guardrail = () => reject('Invalid format');
  const { agent } = mockAgent('test_agent', ['bad result', 'good result']);
  return createSmartTask({
    description: 'Test task',
    expectedOutput: 'Output',
    guardrail,
    maxRetries: 1,
    agent,
  });
}

difference(
  `${FILE}::test_task_with_failing_guardrail`,
  async () => {
    const run = executeSync(failingGuardrailTask());
    await expect(run.result).rejects.toThrow('Task failed guardrail validation');
    expect(run.retryCount()).toBe(1);
  },
  () => failsWithGuardrail(executeSync(failingGuardrailTask()), 'Invalid format', 1),
);

/** The task of `test_task_with_guardrail_retries`: two retries, every answer rejected. */
function guardrailRetriesTask() {
  const guardrail: Guardrail = () => reject('Invalid format');
  const { agent } = mockAgent('test_agent', 'bad result');
  return createSmartTask({
    description: 'Test task',
    expectedOutput: 'Output',
    guardrail,
    maxRetries: 2,
    agent,
  });
}

difference(
  `${FILE}::test_task_with_guardrail_retries`,
  async () => {
    const run = executeSync(guardrailRetriesTask());
    const error = await run.result.then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(Error);
    expect(run.retryCount()).toBe(2);
    expect(String(error)).toContain('Task failed guardrail validation after 2 retries');
    expect(String(error)).toContain('Invalid format');
  },
  () => failsWithGuardrail(executeSync(guardrailRetriesTask()), 'Invalid format', 2),
);

/** The task of `test_guardrail_error_in_context`: the first answer is not JSON, the next one is. */
function errorInContextTask() {
  const guardrail: Guardrail = () => reject('Expected JSON, got string');
  const { agent, llm } = mockAgent('test_agent', ['invalid', '{"valid": "json"}']);
  const task = createSmartTask({
    description: 'Test task',
    expectedOutput: 'Output',
    guardrail,
    maxRetries: 1,
    agent,
  });
  return { task, llm };
}

difference(
  `${FILE}::test_guardrail_error_in_context`,
  async () => {
    const { task } = errorInContextTask();
    const error = await executeSync(task).result.then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(Error);
    expect(String(error)).toContain('Task failed guardrail validation');
    expect(String(error)).toContain('Expected JSON, got string');
  },
  async () => {
    const { task, llm } = errorInContextTask();
    const run = executeSync(task);
    await failsWithGuardrail(run, 'Expected JSON, got string', 1);
    // The retry is told why the answer before it was rejected.
    expect(llm.calls[0]?.prompt).not.toContain('Expected JSON, got string');
    expect(llm.calls[1]?.prompt).toContain(
      'Feedback: your previous answer was rejected: Expected JSON, got string',
    );
  },
);

peer(`${FILE}::test_multiple_guardrails_sequential_processing`, async () => {
  const firstGuardrail: Guardrail = (result) => accept(`[FIRST] ${result.raw}`);
  const secondGuardrail: Guardrail = (result) => accept(`${result.raw} [SECOND]`);
  const thirdGuardrail: Guardrail = (result) => accept(result.raw.toUpperCase());
  const { agent } = mockAgent('sequential_agent', 'original text');
  const task = createSmartTask({
    description: 'Test sequential guardrails',
    expectedOutput: 'Processed text',
    guardrail: [firstGuardrail, secondGuardrail, thirdGuardrail],
    agent,
  });

  const result = completed(await executeSync(task).result);
  expect(result.raw).toBe('[FIRST] ORIGINAL TEXT [SECOND]');
});

peer(`${FILE}::test_multiple_guardrails_with_validation_failure`, async () => {
  const lengthGuardrail: Guardrail = (result) =>
    result.raw.length < 10 ? reject('Text too short') : accept(result.raw);
  const formatGuardrail: Guardrail = (result) =>
    result.raw.startsWith('Formatted:') ? accept(result.raw) : accept(`Formatted: ${result.raw}`);
  const validationGuardrail: Guardrail = (result) =>
    result.raw.includes('Formatted:') ? accept(result.raw) : reject('Missing formatting');
  let callCount = 0;
  const { agent } = mockAgent('validation_agent', () => {
    callCount += 1;
    return callCount === 1 ? 'short' : 'this is a longer text that meets requirements';
  });
  const task = createSmartTask({
    description: 'Test guardrails with validation',
    expectedOutput: 'Valid formatted text',
    guardrail: [lengthGuardrail, formatGuardrail, validationGuardrail],
    maxRetries: 2,
    agent,
  });

  const run = executeSync(task);
  const result = completed(await run.result);
  expect(result.raw).toBe('Formatted: this is a longer text that meets requirements');
  expect(run.retriesAfter('Text too short')).toBe(1);
});

difference(
  `${FILE}::test_multiple_guardrails_with_mixed_string_and_taskoutput`,
  async () => {
    const { task } = mixedReturnTypesTask();
    const result = completed(await executeSync(task).result);
    expect(result.raw).toBe('Final: TaskOutput: String: original');
  },
  async () => {
    // A value that is not a string is the output's structured value; the text goes on as it was.
    const { task, taskOutput } = mixedReturnTypesTask();
    const result = completed(await executeSync(task).result);
    expect(result.raw).toBe('Final: String: original');
    expect(result.tasksOutput[0]?.structured).toEqual(taskOutput());
  },
);

/** The task of `test_multiple_guardrails_with_mixed_string_and_taskoutput`. */
function mixedReturnTypesTask() {
  const stringGuardrail: Guardrail = (result) => accept(`String: ${result.raw}`);
  let made: unknown;
  // Returns a whole TaskOutput, its raw text changed.
  const taskoutputGuardrail: Guardrail = (result) => {
    made = { ...result, raw: `TaskOutput: ${result.raw}` };
    return { ok: true, value: made };
  };
  const finalStringGuardrail: Guardrail = (result) => accept(`Final: ${result.raw}`);
  const { agent } = mockAgent('mixed_agent', 'original');
  const task = createSmartTask({
    description: 'Test mixed return types',
    expectedOutput: 'Mixed processing',
    guardrail: [stringGuardrail, taskoutputGuardrail, finalStringGuardrail],
    agent,
  });
  return { task, taskOutput: () => made };
}

/** The guardrails of `test_multiple_guardrails_with_retry_on_middle_guardrail`, counting their calls. */
function middleRetryTask() {
  const callCount = { first: 0, second: 0, third: 0 };
  const firstGuardrail: Guardrail = (result) => {
    callCount.first += 1;
    return accept(`First(${callCount.first}): ${result.raw}`);
  };
  const secondGuardrail: Guardrail = (result) => {
    callCount.second += 1;
    if (callCount.second === 1) return reject('Second guardrail failed on first attempt');
    return accept(`Second(${callCount.second}): ${result.raw}`);
  };
  const thirdGuardrail: Guardrail = (result) => {
    callCount.third += 1;
    return accept(`Third(${callCount.third}): ${result.raw}`);
  };
  const { agent } = mockAgent('retry_agent', 'base');
  const task = createSmartTask({
    description: 'Test retry in middle guardrail',
    expectedOutput: 'Retry handling',
    guardrail: [firstGuardrail, secondGuardrail, thirdGuardrail],
    maxRetries: 2,
    agent,
  });
  return { task, callCount };
}

difference(
  `${FILE}::test_multiple_guardrails_with_retry_on_middle_guardrail`,
  async () => {
    const { task, callCount } = middleRetryTask();
    const run = executeSync(task);
    const result = await run.result;
    expect(run.retriesAfter('Second guardrail failed on first attempt')).toBe(1);
    expect(callCount.first).toBe(1);
    expect(callCount.second).toBe(2);
    expect(callCount.third).toBe(1);
    expect(result.raw).toContain('Second(2)');
  },
  async () => {
    // The retry's answer goes through every guardrail again, from the first.
    const { task, callCount } = middleRetryTask();
    const run = executeSync(task);
    const result = completed(await run.result);
    expect(run.retriesAfter('Second guardrail failed on first attempt')).toBe(1);
    expect(callCount).toEqual({ first: 2, second: 2, third: 1 });
    expect(result.raw).toBe('Third(1): Second(2): First(2): base');
  },
);

/** The task of `test_multiple_guardrails_with_max_retries_exceeded`. */
function maxRetriesExceededTask() {
  const passingGuardrail: Guardrail = (result) => accept(`Passed: ${result.raw}`);
  const failingGuardrail: Guardrail = () => reject('This guardrail always fails');
  const { agent } = mockAgent('failing_agent', 'test');
  return createSmartTask({
    description: 'Test max retries with multiple guardrails',
    expectedOutput: 'Will fail',
    guardrail: [passingGuardrail, failingGuardrail],
    maxRetries: 1,
    agent,
  });
}

difference(
  `${FILE}::test_multiple_guardrails_with_max_retries_exceeded`,
  async () => {
    const run = executeSync(maxRetriesExceededTask());
    const error = await run.result.then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(Error);
    expect(String(error)).toContain('Task failed guardrail 1 validation after 1 retries');
    expect(String(error)).toContain('This guardrail always fails');
    expect(run.retriesAfter('This guardrail always fails')).toBe(1);
  },
  () => failsWithGuardrail(executeSync(maxRetriesExceededTask()), 'This guardrail always fails', 1),
);

peer(`${FILE}::test_multiple_guardrails_empty_list`, async () => {
  const { agent } = mockAgent('empty_agent', 'no guardrails');
  const task = createSmartTask({
    description: 'Test empty guardrails list',
    expectedOutput: 'No processing',
    guardrail: [],
    agent,
  });

  const result = completed(await executeSync(task).result);
  expect(result.raw).toBe('no guardrails');
});

peer(`${FILE}::test_multiple_guardrails_with_llm_guardrails`, () => {
  const callableGuardrail: Guardrail = (result) => accept(`Callable: ${result.raw}`);
  const agent = new Agent({
    role: 'mixed_guardrail_agent',
    goal: 'Test goal',
    backstory: 'Test backstory',
    llm: createScriptedModel([]),
  });
  const task = createSmartTask({
    description: 'Test mixed guardrail types',
    expectedOutput: 'Mixed processing',
    guardrail: [callableGuardrail, modelGuardrail('Ensure the output is professional')],
    agent,
  });

  const guardrails = [task.guardrail ?? []].flat();
  expect(guardrails).toHaveLength(2);
  expect(guardrails[0]).toBeTypeOf('function');
  expect(guardrails[1]).toBeTypeOf('function');
});

peer(`${FILE}::test_multiple_guardrails_processing_order`, async () => {
  const processingOrder: string[] = [];
  const firstGuardrail: Guardrail = (result) => {
    processingOrder.push('first');
    return accept(`1-${result.raw}`);
  };
  const secondGuardrail: Guardrail = (result) => {
    processingOrder.push('second');
    return accept(`2-${result.raw}`);
  };
  const thirdGuardrail: Guardrail = (result) => {
    processingOrder.push('third');
    return accept(`3-${result.raw}`);
  };
  const { agent } = mockAgent('order_agent', 'base');
  const task = createSmartTask({
    description: 'Test processing order',
    expectedOutput: 'Ordered processing',
    guardrail: [firstGuardrail, secondGuardrail, thirdGuardrail],
    agent,
  });

  const result = completed(await executeSync(task).result);
  expect(processingOrder).toEqual(['first', 'second', 'third']);
  expect(result.raw).toBe('3-2-1-base');
});

/** The task of `test_multiple_guardrails_with_pydantic_output`, counting its guardrails' calls. */
function pydanticOutputTask() {
  const TestModel = z.object({
    content: z.string().describe('The content'),
    processed: z.boolean().describe('Whether it was processed'),
  });
  let guardrailCalls = 0;
  const jsonGuardrail: Guardrail = (result) => {
    guardrailCalls += 1;
    return accept(JSON.stringify({ content: result.raw, processed: true }));
  };
  const validationGuardrail: Guardrail = (result) => {
    guardrailCalls += 1;
    try {
      const data = JSON.parse(result.raw) as Record<string, unknown>;
      if (!('content' in data) || !('processed' in data)) return reject('Missing required fields');
      return accept(result.raw);
    } catch {
      return reject('Invalid JSON format');
    }
  };
  const { agent } = mockAgent('pydantic_agent', 'test content');
  const task = createSmartTask({
    description: 'Test guardrails with Pydantic',
    expectedOutput: 'Structured output',
    guardrail: [jsonGuardrail, validationGuardrail],
    outputSchema: TestModel,
    agent,
  });
  return { task, guardrailCalls: () => guardrailCalls };
}

difference(
  `${FILE}::test_multiple_guardrails_with_pydantic_output`,
  async () => {
    const result = completed(await executeSync(pydanticOutputTask().task).result);
    const parsed = JSON.parse(result.raw) as Record<string, unknown>;
    expect(parsed.content).toBe('test content');
    expect(parsed.processed).toBe(true);
  },
  async () => {
    // The schema reads the answer before any guardrail: an answer that is not JSON fails it, each attempt.
    const { task, guardrailCalls } = pydanticOutputTask();
    const out = await executeSync(task).result;
    expect(out.status).toBe('failed');
    expect(out.failures[NODE]?.code).toBe('output_invalid');
    expect(guardrailCalls()).toBe(0);
  },
);

/** The task of `test_guardrails_vs_single_guardrail_mutual_exclusion`: `guardrail` and `guardrails` both given. */
function mutualExclusionOptions() {
  const singleGuardrail: Guardrail = (result) => accept(`Single: ${result.raw}`);
  const listGuardrail: Guardrail = (result) => accept(`List: ${result.raw}`);
  const { agent } = mockAgent('exclusion_agent', 'test');
  const options = { description: 'Test mutual exclusion', expectedOutput: 'Exclusion test', agent };
  return { options, singleGuardrail, listGuardrail };
}

difference(
  `${FILE}::test_guardrails_vs_single_guardrail_mutual_exclusion`,
  async () => {
    const { options, singleGuardrail, listGuardrail } = mutualExclusionOptions();
    const task = createSmartTask({
      ...options,
      guardrail: singleGuardrail,
      guardrails: [listGuardrail],
    } as TaskOptions);
    const result = await executeSync(task).result;
    expect(result.raw).toBe('List: test');
  },
  async () => {
    // One option takes one guardrail or a list; a second option is refused as unknown.
    const { options, singleGuardrail, listGuardrail } = mutualExclusionOptions();
    expect(
      () => new Task({ ...options, guardrail: singleGuardrail, guardrails: [listGuardrail] } as TaskOptions),
    ).toThrow(
      expect.objectContaining({ code: 'invalid_option', message: expect.stringContaining('"guardrails"') }),
    );
    const result = completed(
      await executeSync(createSmartTask({ ...options, guardrail: [listGuardrail] })).result,
    );
    expect(result.raw).toBe('List: test');
  },
);

/** The guardrails of `test_per_guardrail_independent_retry_tracking`, counting their calls. */
function independentRetryTask() {
  const callCounts = { g1: 0, g2: 0, g3: 0 };
  const guardrail1: Guardrail = (result) => {
    callCounts.g1 += 1;
    if (callCounts.g1 <= 2) return reject('Guardrail 1 not ready yet');
    return accept(`G1(${callCounts.g1}): ${result.raw}`);
  };
  const guardrail2: Guardrail = (result) => {
    callCounts.g2 += 1;
    if (callCounts.g2 === 1) return reject('Guardrail 2 not ready yet');
    return accept(`G2(${callCounts.g2}): ${result.raw}`);
  };
  const guardrail3: Guardrail = (result) => {
    callCounts.g3 += 1;
    return accept(`G3(${callCounts.g3}): ${result.raw}`);
  };
  const { agent } = mockAgent('independent_retry_agent', 'base');
  const task = createSmartTask({
    description: 'Test independent retry tracking',
    expectedOutput: 'Independent retries',
    guardrail: [guardrail1, guardrail2, guardrail3],
    maxRetries: 3,
    agent,
  });
  return { task, callCounts };
}

difference(
  `${FILE}::test_per_guardrail_independent_retry_tracking`,
  async () => {
    const { task, callCounts } = independentRetryTask();
    const run = executeSync(task);
    const result = await run.result;

    const retriesAfterGuardrail1 = run.retriesAfter('Guardrail 1 not ready yet');
    const retriesAfterGuardrail2 = run.retriesAfter('Guardrail 2 not ready yet');
    expect(retriesAfterGuardrail1).toBe(2);
    expect(retriesAfterGuardrail2).toBe(1);
    // Guardrail 3 never rejects: no retry comes after it.
    expect(run.retryCount() - retriesAfterGuardrail1 - retriesAfterGuardrail2).toBe(0);

    expect(callCounts.g1).toBe(3);
    expect(callCounts.g2).toBe(2);
    expect(callCounts.g3).toBe(1);

    expect(result.raw).toContain('G3(1)');
  },
  async () => {
    // One budget of retries for the task run; each retry's answer goes through every guardrail again.
    const { task, callCounts } = independentRetryTask();
    const run = executeSync(task);
    const result = completed(await run.result);
    expect(run.retriesAfter('Guardrail 1 not ready yet')).toBe(2);
    expect(run.retriesAfter('Guardrail 2 not ready yet')).toBe(1);
    expect(run.retryCount()).toBe(3);
    expect(callCounts).toEqual({ g1: 4, g2: 2, g3: 1 });
    expect(result.raw).toBe('G3(1): G2(2): G1(4): base');
  },
);
