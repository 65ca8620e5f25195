import { Annotation, END, START, StateGraph } from '@langchain/langgraph';
import { type Adapter, stubModel, type Workload } from './workloads.js';

const sum = (a: number, b: number): number => a + b;

const ChainState = Annotation.Root({
  output: Annotation<string>,
  steps: Annotation<number>({ reducer: sum, default: () => 0 }),
});

const FanState = Annotation.Root({
  seed: Annotation<string>,
  outputs: Annotation<string[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
  received: Annotation<number>,
});

const LoopState = Annotation.Root({
  counter: Annotation<number>,
});

const RouteState = Annotation.Root({
  index: Annotation<number>,
  input: Annotation<string>,
  branch: Annotation<string>,
});

async function build(workload: Workload, n: number): Promise<() => Promise<number>> {
  const config = { recursionLimit: n + 10 };
  switch (workload) {
    case 'W1': {
      const names = Array.from({ length: n }, (_, i) => `step${i}` as const);
      const step = async (state: typeof ChainState.State) => ({
        output: await stubModel(state.output),
        steps: 1,
      });
      const graph = new StateGraph(ChainState).addNode(
        names.map((name): [typeof name, typeof step] => [name, step]),
      );
      const at = (i: number) => names[i] as (typeof names)[number];
      graph.addEdge(START, at(0));
      for (let i = 0; i + 1 < n; i += 1) graph.addEdge(at(i), at(i + 1));
      graph.addEdge(at(n - 1), END);
      const app = graph.compile();
      return async () => (await app.invoke({ output: 'start' }, config)).steps;
    }
    case 'W2': {
      const names = Array.from({ length: n }, (_, i) => `branch${i}` as const);
      const parallel = (i: number) => async (state: typeof FanState.State) => ({
        outputs: [await stubModel(`${state.seed}${i}`)],
      });
      const graph = new StateGraph(FanState)
        .addNode('start', async () => ({ seed: await stubModel('start') }))
        .addNode(names.map((name, i): [typeof name, ReturnType<typeof parallel>] => [name, parallel(i)]))
        .addNode('join', async (state) => {
          await stubModel(state.outputs.join(','));
          return { received: state.outputs.length };
        })
        .addEdge(START, 'start');
      for (const name of names) graph.addEdge('start', name);
      graph.addEdge(names, 'join').addEdge('join', END);
      const app = graph.compile();
      return async () => (await app.invoke({}, config)).received;
    }
    case 'W3': {
      const app = new StateGraph(LoopState)
        .addNode('step', async (state) => {
          await stubModel(String(state.counter));
          return { counter: state.counter + 1 };
        })
        .addEdge(START, 'step')
        .addConditionalEdges('step', (state) => (state.counter === n ? END : 'step'), ['step', END])
        .compile();
      return async () => (await app.invoke({ counter: 0 }, config)).counter;
    }
    case 'W4': {
      const branch = (name: 'left' | 'right') => async (state: typeof RouteState.State) => {
        await stubModel(`${name}${state.input}`);
        return { branch: name };
      };
      const app = new StateGraph(RouteState)
        .addNode('router', async (state) => ({ input: await stubModel(String(state.index)) }))
        .addNode('left', branch('left'))
        .addNode('right', branch('right'))
        .addEdge(START, 'router')
        .addConditionalEdges('router', (state) => (state.index % 2 === 0 ? 'left' : 'right'), [
          'left',
          'right',
        ])
        .addEdge('left', END)
        .addEdge('right', END)
        .compile();
      return async () => {
        let left = 0;
        for (let i = 0; i < n; i += 1) {
          const result = await app.invoke({ index: i });
          if (result.branch === 'left') left += 1;
        }
        return left;
      };
    }
  }
}

/** LangGraph.js: each workload as a StateGraph (Annotation state, reducers, fan-in and conditional edges), compiled in build. */
export const langgraph: Adapter = { name: 'LangGraph.js 1.7.3', build };
