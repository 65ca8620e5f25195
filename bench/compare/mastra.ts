import { createStep, createWorkflow } from '@mastra/core/workflows';
import { z } from 'zod';
import { type Adapter, stubModel } from './workloads.js';

const chainSchema = z.object({ text: z.string(), steps: z.number() });
const textSchema = z.object({ text: z.string() });
const joinedSchema = z.object({ received: z.number() });
const counterSchema = z.object({ counter: z.number() });
const indexSchema = z.object({ index: z.number() });
const routedSchema = z.object({ index: z.number(), text: z.string() });
const sideSchema = z.object({ side: z.enum(['left', 'right']), text: z.string() });
const branchedSchema = z.object({ left: sideSchema.optional(), right: sideSchema.optional() });

/** A finished run's output, or an error if the run did not succeed. */
function output<T>(result: { status: 'success'; result: T } | { status: 'failed' | 'suspended' }): T {
  if (result.status !== 'success') throw new Error(`Mastra run ended with status "${result.status}"`);
  return result.result;
}

/** W1: N steps chained with .then, each passing its stub output and a running step count. */
function chain(n: number) {
  let flow = createWorkflow({ id: 'w1-chain', inputSchema: chainSchema, outputSchema: chainSchema });
  for (let i = 0; i < n; i += 1) {
    flow = flow.then(
      createStep({
        id: `step-${i}`,
        inputSchema: chainSchema,
        outputSchema: chainSchema,
        execute: async ({ inputData }) => ({
          text: await stubModel(inputData.text),
          steps: inputData.steps + 1,
        }),
      }),
    );
  }
  const workflow = flow.commit();
  return async () => {
    const run = await workflow.createRunAsync();
    return output(await run.start({ inputData: { text: 'start', steps: 0 } })).steps;
  };
}

/** W2: start → .parallel(N steps) → a join step that receives the outputs keyed by step id. */
function fanOut(n: number) {
  const start = createStep({
    id: 'start',
    inputSchema: z.object({}),
    outputSchema: textSchema,
    execute: async () => ({ text: await stubModel('start') }),
  });
  const branches = Array.from({ length: n }, (_, i) =>
    createStep({
      id: `branch-${i}`,
      inputSchema: textSchema,
      outputSchema: textSchema,
      execute: async ({ inputData }) => ({ text: await stubModel(`${inputData.text}${i}`) }),
    }),
  );
  const join = createStep({
    id: 'join',
    inputSchema: z.record(z.string(), textSchema),
    outputSchema: joinedSchema,
    execute: async ({ inputData }) => {
      const outputs = Object.values(inputData).map((branch) => branch.text);
      await stubModel(outputs.join(','));
      return { received: outputs.length };
    },
  });
  const workflow = createWorkflow({ id: 'w2-fan-out', inputSchema: z.object({}), outputSchema: joinedSchema })
    .then(start)
    .parallel(branches)
    .then(join)
    .commit();
  return async () => {
    const run = await workflow.createRunAsync();
    return output(await run.start({ inputData: {} })).received;
  };
}

/** W3: .dountil over one step that calls the stub and increments a counter until it reaches N. */
function loop(n: number) {
  const tick = createStep({
    id: 'tick',
    inputSchema: counterSchema,
    outputSchema: counterSchema,
    execute: async ({ inputData }) => {
      await stubModel(String(inputData.counter));
      return { counter: inputData.counter + 1 };
    },
  });
  const workflow = createWorkflow({ id: 'w3-loop', inputSchema: counterSchema, outputSchema: counterSchema })
    .dountil(tick, async ({ inputData }) => inputData.counter === n)
    .commit();
  return async () => {
    const run = await workflow.createRunAsync();
    return output(await run.start({ inputData: { counter: 0 } })).counter;
  };
}

/** W4: start → .branch(left when the index is even, right when odd); one fresh run per index. */
function route(n: number) {
  const start = createStep({
    id: 'start',
    inputSchema: indexSchema,
    outputSchema: routedSchema,
    execute: async ({ inputData }) => ({
      index: inputData.index,
      text: await stubModel(String(inputData.index)),
    }),
  });
  const side = (id: 'left' | 'right') =>
    createStep({
      id,
      inputSchema: routedSchema,
      outputSchema: sideSchema,
      execute: async ({ inputData }) => ({ side: id, text: await stubModel(`${id}${inputData.text}`) }),
    });
  const workflow = createWorkflow({ id: 'w4-branch', inputSchema: indexSchema, outputSchema: branchedSchema })
    .then(start)
    .branch([
      [async ({ inputData }) => inputData.index % 2 === 0, side('left')],
      [async ({ inputData }) => inputData.index % 2 !== 0, side('right')],
    ])
    .commit();
  return async () => {
    let left = 0;
    for (let index = 0; index < n; index += 1) {
      const run = await workflow.createRunAsync();
      if (output(await run.start({ inputData: { index } })).left?.side === 'left') left += 1;
    }
    return left;
  };
}

/** Mastra's workflow API (createWorkflow / createStep, no Mastra instance or storage), one workflow per workload. */
export const mastra: Adapter = {
  name: 'Mastra 0.24.9',
  async build(workload, n) {
    switch (workload) {
      case 'W1':
        return chain(n);
      case 'W2':
        return fanOut(n);
      case 'W3':
        return loop(n);
      case 'W4':
        return route(n);
    }
  },
};
