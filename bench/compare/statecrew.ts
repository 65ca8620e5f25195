import { Agent, Crew, createFlow, Task } from 'statecrew';
import { type Adapter, stubModel } from './workloads.js';

/** statecrew, as built from this repository (`npm run build`): crews for W1–W3, a flow for W4. */
export const statecrew: Adapter = {
  name: 'statecrew',
  async build(workload, n) {
    switch (workload) {
      case 'W1': {
        const agent = new Agent({ role: 'Worker', llm: (_prompt, context) => stubModel(context) });
        const tasks = Array.from(
          { length: n },
          (_, i) => new Task({ name: `s${i}`, description: `step ${i}`, agent }),
        );
        const crew = new Crew({ tasks });
        return async () => {
          const out = await crew.kickoff();
          if (out.status !== 'completed') throw new Error(`W1 ${out.status}`);
          return out.nodes.length;
        };
      }
      case 'W2': {
        const agent = new Agent({ role: 'Worker', llm: (_prompt, context) => stubModel(context) });
        const joiner = new Agent({
          role: 'Joiner',
          llm: async (_prompt, context) => `${context.split('\n').length}:${await stubModel(context)}`,
        });
        const start = new Task({ name: 'start', description: 'start', agent });
        const middle = Array.from(
          { length: n },
          (_, i) => new Task({ name: `p${i}`, description: `p${i}`, agent, context: [start] }),
        );
        const join = new Task({ name: 'join', description: 'join', agent: joiner, context: middle });
        const crew = new Crew({ tasks: [start, ...middle, join], process: 'graph' });
        return async () => {
          const out = await crew.kickoff();
          if (out.status !== 'completed') throw new Error(`W2 ${out.status}`);
          return Number((out.outputOf(join)?.raw ?? '').split(':')[0]);
        };
      }
      case 'W3': {
        let counter = 0;
        const agent = new Agent({
          role: 'Worker',
          llm: async (_prompt, context) => {
            counter += 1;
            return stubModel(context);
          },
        });
        const crew = new Crew({
          tasks: [new Task({ name: 'step', description: 'step', agent })],
          process: 'loop',
          loop: {
            condition: `the counter reached ${n}`,
            judge: () => (counter >= n ? 'YES' : 'NO'),
            maxIterations: n,
          },
        });
        return async () => {
          counter = 0;
          const out = await crew.kickoff();
          if (out.status !== 'completed' || out.metadata.conditionMet !== true)
            throw new Error('W3 did not meet its condition');
          return counter;
        };
      }
      case 'W4': {
        const flow = createFlow({ name: 'w4', initialState: { index: 0 } })
          .start('input', ({ state }) => stubModel(String(state.index)))
          .router('route', 'input', ({ state }) => (state.index % 2 === 0 ? 'goLeft' : 'goRight'), {
            routes: ['goLeft', 'goRight'],
          })
          .listen('left', 'goLeft', ({ payload }) => stubModel(String(payload)))
          .listen('right', 'goRight', ({ payload }) => stubModel(String(payload)));
        return async () => {
          let left = 0;
          for (let i = 0; i < n; i += 1) {
            const out = await flow.kickoff({ inputs: { index: i } });
            if (out.status !== 'completed') throw new Error(`W4 ${out.status}`);
            if (out.trail.includes('left')) left += 1;
          }
          return left;
        };
      }
    }
  },
};
