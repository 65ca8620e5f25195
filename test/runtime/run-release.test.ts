import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { Agent, Crew, createFlow, type ProcessKind, Task } from '../../src/index.js';
import { createScriptedModel } from '../../src/testing.js';

setFlagsFromString('--expose-gc');
/** V8's full garbage collection, exposed for this test. */
const gc = runInNewContext('gc') as () => void;

/** A turn of the event loop: what a run left queued runs first. */
const turn = () => new Promise((resolve) => setImmediate(resolve));

function crew(process: ProcessKind, llm: ConstructorParameters<typeof Agent>[0]['llm']) {
  const worker = new Agent({ role: 'W', llm, maxRetries: 0 });
  return new Crew({
    tasks: [
      new Task({ name: 'a', description: 'a', agent: worker }),
      new Task({ name: 'b', description: 'b', agent: worker }),
    ],
    agents: [worker],
    process,
    manager: { allocate: () => 'W', synthesize: (_g, outputs) => outputs.join() },
    loop: { condition: 'done', judge: () => 'YES' },
  });
}

/** Runs `start`'s run to its end and gives back a weak reference to its supervisor actor only. */
async function endedRun(start: () => { actor: object; result: Promise<unknown> }): Promise<WeakRef<object>> {
  const run = start();
  await run.result.catch(() => {});
  return new WeakRef(run.actor);
}

/** An aborted run, once it rejected: a weak reference to its supervisor actor. */
async function abortedRun(process: ProcessKind): Promise<WeakRef<object>> {
  const controller = new AbortController();
  const hanging = crew(
    process,
    createScriptedModel(() => () => new Promise<string>(() => {})),
  ).run({ signal: controller.signal });
  await new Promise<void>((resolve) =>
    hanging.events$.subscribe((e) => e.type === 'node.started' && resolve()),
  );
  controller.abort(new Error('stop'));
  const error = await hanging.result.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toMatchObject({ code: 'aborted' });
  return new WeakRef(hanging.actor);
}

describe('a run that ended', () => {
  it('leaves nothing that holds it: completed, failed, rejected and aborted runs are all collected', async () => {
    const refs: WeakRef<object>[] = [];
    for (const process of ['sequential', 'hierarchical', 'parallel', 'graph', 'loop'] as const) {
      refs.push(await endedRun(() => crew(process, () => 'ok').run()));
      refs.push(
        await endedRun(() =>
          crew(process, () => {
            throw new Error('down');
          }).run(),
        ),
      );
      refs.push(await abortedRun(process));
    }
    const rejecting = new Crew({
      tasks: [new Task({ name: 'a', description: 'a' })],
      agents: [new Agent({ role: 'W', llm: () => 'x' })],
      process: 'hierarchical',
      manager: { allocate: () => 'Nobody', synthesize: () => '' },
    });
    refs.push(await endedRun(() => rejecting.run()));
    const flow = createFlow({ name: 'f', initialState: {} })
      .start('s', () => 's')
      .listen('t', 's', () => {
        throw new Error('step failed');
      });
    refs.push(await endedRun(() => flow.run()));
    refs.push(await endedRun(() => flow.run({ routes: {} })));
    // A weak reference holds its target until the end of the job that made it: collect in later turns.
    await turn();
    gc();
    await turn();
    gc();
    expect(refs.flatMap((ref, i) => (ref.deref() === undefined ? [] : [i]))).toEqual([]);
  });
});
