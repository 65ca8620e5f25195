import { Agent, Crew, Task } from '../src/index.js';

for (const N of [10, 100, 1000]) {
  const worker = new Agent({ role: 'W', llm: () => 'ok' });
  const root = new Task({ name: 'root', description: 'x', agent: worker });
  const middle = Array.from(
    { length: N },
    (_, i) => new Task({ name: `m${i}`, description: 'x', agent: worker, context: [root] }),
  );
  const crew = new Crew({ tasks: [root, ...middle], process: 'graph', maxConcurrency: N + 1 });
  const out = await crew.kickoff();
  console.log(N, out.status, out.nodes.length);
}
