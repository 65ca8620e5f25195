import { describe, expect, it } from 'vitest';
import {
  Crew,
  type CrewOptions,
  ExecutionDocument,
  MemoryStore,
  type Policy,
  StatecrewError,
  Task,
} from '../../src/index.js';
import { createScriptedModel } from '../../src/testing.js';
import { agent, taskLine } from '../helpers.js';

/** A model that answers `<task>: <context>` and throws (for good) on the tasks in `failing`. */
function modelFailing(failing: Set<string>) {
  return createScriptedModel((request) => {
    const task = taskLine(request.prompt).slice('Task: '.length);
    if (failing.has(task)) throw new StatecrewError('output_invalid', `${task} broke`, { retryable: false });
    return `${task}<${request.context}>`;
  });
}

const asked = (model: ReturnType<typeof modelFailing>) => model.calls.map((c) => taskLine(c.prompt).slice(6));

function crewOf(
  store: MemoryStore,
  llm: ReturnType<typeof modelFailing>,
  options: Partial<CrewOptions> = {},
) {
  const w = agent('W', llm);
  const [a, b, c] = ['a', 'b', 'c'].map((name) => new Task({ name, description: name, agent: w })) as [
    Task,
    Task,
    Task,
  ];
  return new Crew({ tasks: [a, b, c], store, ...options });
}

describe('crew.resume', () => {
  it('sequential: runs only what has no stored completed result, reading stored outputs as context', async () => {
    const store = new MemoryStore();
    const first = modelFailing(new Set(['b']));
    const out1 = await crewOf(store, first).kickoff({ executionId: 'seq' });
    expect(out1.status).toBe('partial');
    const second = modelFailing(new Set());
    const out = await crewOf(store, second).resume('seq');
    expect(asked(second)).toEqual(['b', 'c']);
    expect(second.calls[0]?.context).toBe('a<>');
    expect(out.status).toBe('completed');
    expect(out.metadata.executionId).toBe('seq');
    expect(out.metadata.restored).toEqual(['a']);
    expect(out.tasksOutput.map((t) => t.raw)).toEqual(['a<>', 'b<a<>>', 'c<b<a<>>>']);
    expect(out.nodes[0]).toMatchObject({ nodeId: 'a', attempts: 1, usage: out1.nodes[0]?.usage });
    expect(out.usage.calls).toBe(3); // the whole execution: a's stored call and this run's two
    expect((await ExecutionDocument.fromStore(store, 'seq'))?.status).toBe('completed');
  });

  it('graph: completed nodes are settled and their dependents ready', async () => {
    const store = new MemoryStore();
    const make = (llm: ReturnType<typeof modelFailing>) => {
      const w = agent('W', llm);
      const a = new Task({ name: 'a', description: 'a', agent: w });
      const b = new Task({ name: 'b', description: 'b', agent: w, context: [a] });
      const c = new Task({ name: 'c', description: 'c', agent: w, context: [a] });
      const d = new Task({ name: 'd', description: 'd', agent: w, context: [b, c] });
      return new Crew({ tasks: [a, b, c, d], process: 'graph', store });
    };
    const out1 = await make(modelFailing(new Set(['b']))).kickoff({ executionId: 'g' });
    expect(out1.metadata.blocked).toEqual(['d']);
    const second = modelFailing(new Set());
    const out = await make(second).resume('g');
    expect(asked(second)).toEqual(['b', 'd']);
    expect(second.calls[1]?.context).toBe('b<a<>>\nc<a<>>');
    expect(out.status).toBe('completed');
    expect([...(out.metadata.restored ?? [])].sort()).toEqual(['a', 'c']);
  });

  it('parallel: only the failed task runs again', async () => {
    const store = new MemoryStore();
    await crewOf(store, modelFailing(new Set(['b'])), { process: 'parallel' }).kickoff({ executionId: 'p' });
    const second = modelFailing(new Set());
    const out = await crewOf(store, second, { process: 'parallel' }).resume('p');
    expect(asked(second)).toEqual(['b']);
    expect(out.status).toBe('completed');
  });

  it('hierarchical: the manager is asked only about the tasks that run again, then synthesizes', async () => {
    const store = new MemoryStore();
    const allocated: string[] = [];
    const manager = {
      allocate: (description: string) => {
        allocated.push(description);
        return 'W';
      },
      synthesize: (_goal: string, outputs: string[]) => outputs.join(' | '),
    };
    const opts = { process: 'hierarchical', manager, goal: 'g' } as const;
    await crewOf(store, modelFailing(new Set(['b'])), opts).kickoff({ executionId: 'h' });
    allocated.length = 0;
    const second = modelFailing(new Set());
    const out = await crewOf(store, second, opts).resume('h');
    expect(allocated).toEqual(['b', 'c']);
    expect(out.managerCalls).toBe(3);
    expect(out.delegations.map((d) => d.task)).toEqual(['a', 'b', 'c']);
    expect(out.raw).toBe('a<> | b<a<>> | c<a<>\nb<a<>>>');
  });

  it('loop: resumes at the iteration it was in, without judging the iterations before again', async () => {
    const store = new MemoryStore();
    const verdicts: string[] = [];
    const judge = (_prompt: string, context: string) => {
      verdicts.push(context);
      return verdicts.length === 1 ? 'NO' : 'YES';
    };
    const w = (llm: Policy) => agent('W', llm);
    const make = (llm: Policy) =>
      new Crew({
        tasks: [new Task({ name: 'draft', description: 'draft', agent: w(llm) })],
        process: 'loop',
        loop: { condition: 'good', judge, maxIterations: 3 },
        store,
      });
    let calls = 0;
    const flaky: Policy = (_p, context) => {
      calls += 1;
      if (calls === 2) throw new StatecrewError('output_invalid', 'broke', { retryable: false });
      return `v${calls}<${context}>`;
    };
    const out1 = await make(flaky).kickoff({ executionId: 'l' });
    expect(out1.status).toBe('partial');
    expect(verdicts).toHaveLength(1);
    const out = await make(flaky).resume('l');
    expect(calls).toBe(3); // only draft#2 ran again
    expect(out.metadata.restored).toEqual(['draft#1']);
    expect(out.metadata.iterations).toBe(2);
    expect(out.metadata.conditionMet).toBe(true);
    expect(verdicts).toEqual(['v1<>', 'v3<v1<>>']);
  });

  it('a run aborted half way is stored as aborted and resumes without running its completed tasks again', async () => {
    const store = new MemoryStore();
    const controller = new AbortController();
    const first = createScriptedModel((request) => {
      if (taskLine(request.prompt) === 'Task: c') controller.abort('shutdown');
      return 'ok';
    });
    await expect(
      crewOf(store, first as ReturnType<typeof modelFailing>).kickoff({
        executionId: 'x',
        signal: controller.signal,
      }),
    ).rejects.toMatchObject({ code: 'aborted' });
    // Once the rejection arrived, the store says so: no wait for a write that may still land.
    const aborted = await ExecutionDocument.fromStore(store, 'x');
    expect(aborted?.status).toBe('aborted');
    expect(aborted?.results.map((r) => r.nodeId)).toEqual(['a', 'b']);
    const second = modelFailing(new Set());
    await crewOf(store, second).resume('x');
    expect(asked(second)).toEqual(['c']);
    expect((await ExecutionDocument.fromStore(store, 'x'))?.status).toBe('completed');
  });

  it('needs a store (store_required) and a stored run (run_not_found)', async () => {
    const llm = modelFailing(new Set());
    const noStore = new Crew({ tasks: [new Task({ name: 'a', description: 'a', agent: agent('W', llm) })] });
    await expect(noStore.resume('any')).rejects.toMatchObject({ code: 'store_required' });
    await expect(crewOf(new MemoryStore(), llm).resume('missing')).rejects.toMatchObject({
      code: 'run_not_found',
    });
  });
});

describe('crew.replay', () => {
  it('keeps the tasks before fromTask and runs the rest again as a new execution', async () => {
    const store = new MemoryStore();
    await crewOf(store, modelFailing(new Set())).kickoff({ executionId: 'src' });
    const second = modelFailing(new Set());
    const crew = crewOf(store, second);
    const out = await crew.replay('src', { fromTask: 'b', executionId: 'again' });
    expect(asked(second)).toEqual(['b', 'c']);
    expect(out.metadata).toMatchObject({ executionId: 'again', replayOf: 'src', restored: ['a'] });
    expect((await ExecutionDocument.fromStore(store, 'src'))?.results).toHaveLength(3);
    expect((await ExecutionDocument.fromStore(store, 'again'))?.results.map((r) => r.nodeId)).toEqual([
      'a',
      'b',
      'c',
    ]);
    await expect(crew.replay('src', { fromTask: 'zzz' })).rejects.toMatchObject({ code: 'invalid_option' });
    const fromTask = crew.tasks[2] as Task;
    const third = await crew.replay('src', { fromTask });
    expect(third.metadata.restored).toEqual(['a', 'b']);
  });

  it('takes the store as a run option: kept there, resumed and replayed from there, not the crew’s', async () => {
    const own = new MemoryStore();
    const elsewhere = new MemoryStore();
    const first = modelFailing(new Set(['b']));
    await crewOf(own, first).kickoff({ executionId: 'x', store: elsewhere });
    expect(await own.executions('crew_task_results')).toEqual([]);
    expect(await elsewhere.executions('crew_task_results')).toEqual(['x']);
    const second = modelFailing(new Set());
    const out = await crewOf(own, second).resume('x', { store: elsewhere });
    expect(asked(second)).toEqual(['b', 'c']);
    expect(out.status).toBe('completed');
    await expect(crewOf(own, second).resume('x')).rejects.toMatchObject({ code: 'run_not_found' });
    const replayed = await crewOf(own, modelFailing(new Set())).replay('x', {
      fromTask: 'c',
      store: elsewhere,
    });
    expect(replayed.metadata.restored).toEqual(['a', 'b']);
    expect(() => crewOf(own, second).run({ store: {} as never })).toThrow(/option "store"/);
  });
});
