import { describe, expect, it } from 'vitest';
import { Crew, Task } from '../../src/index.js';
import { agent, echoModel } from '../helpers.js';

// A crew whose texts have no placeholder plans once and reuses that plan: these runs show that what a
// run does still follows the crew as it is at each kickoff.
describe('a crew planned once for its runs', () => {
  const graphOf = () => {
    const llm = echoModel();
    const worker = agent('W', llm);
    const a = new Task({ name: 'a', description: 'A', agent: worker });
    const b = new Task({ name: 'b', description: 'B', agent: worker });
    const c = new Task({ name: 'c', description: 'C', agent: worker, context: [a] });
    const crew = new Crew({ tasks: [a, b, c], process: 'graph' });
    const contextOfC = () => llm.calls.filter((call) => call.prompt.endsWith('Task: C')).at(-1)?.context;
    return { llm, a, b, c, crew, contextOfC };
  };

  it('follows a context list changed in place, replaced or emptied between runs', async () => {
    const { a, b, c, crew, contextOfC } = graphOf();
    await crew.kickoff();
    expect(contextOfC()).toBe('W: A');
    c.context?.push(b);
    await crew.kickoff();
    expect(contextOfC()).toBe('W: A\nW: B');
    c.context = [b];
    await crew.kickoff();
    expect(contextOfC()).toBe('W: B');
    c.context.length = 0;
    await crew.kickoff();
    expect(contextOfC()).toBe('');
    c.context = [a];
    await crew.kickoff();
    expect(contextOfC()).toBe('W: A');
  });

  it('checks a changed plan again: a cycle made after a run rejects the next kickoff', async () => {
    const { a, c, crew } = graphOf();
    expect((await crew.kickoff()).status).toBe('completed');
    a.context = [c];
    await expect(crew.kickoff()).rejects.toMatchObject({ code: 'cycle' });
    a.context = undefined;
    expect((await crew.kickoff()).status).toBe('completed');
  });

  it('runs two runs of one plan at once, each on its own', async () => {
    const { crew, llm } = graphOf();
    const [first, second] = await Promise.all([crew.kickoff(), crew.kickoff()]);
    expect(first.status).toBe('completed');
    expect(second.status).toBe('completed');
    expect(first.metadata.executionId).not.toBe(second.metadata.executionId);
    expect(Object.keys(first.nodeResults).sort()).toEqual(['a', 'b', 'c']);
    expect(Object.keys(second.nodeResults).sort()).toEqual(['a', 'b', 'c']);
    expect(llm.calls).toHaveLength(6);
  });

  it('fills each run’s inputs into a crew whose texts have placeholders', async () => {
    const llm = echoModel();
    const task = new Task({ name: 't', description: 'about {topic}', agent: agent('W', llm) });
    const crew = new Crew({ tasks: [task] });
    expect((await crew.kickoff({ inputs: { topic: 'AI' } })).raw).toBe('W: about AI');
    expect((await crew.kickoff({ inputs: { topic: 'ML' } })).raw).toBe('W: about ML');
  });
});
