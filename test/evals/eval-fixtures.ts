import { Agent, Crew, createFlow, type Llm, Task } from '../../src/index.js';
import { createScriptedModel, type ScriptedModel } from '../../src/testing.js';
import { taskLine } from '../helpers.js';

/** A model answering `<role>: <task line>`, each call spending 10 input and 5 output tokens. */
export function echoWithUsage(): ScriptedModel {
  return createScriptedModel((request) => ({
    text: `${request.agent}: ${taskLine(request.prompt).slice('Task: '.length)}`,
    usage: { inputTokens: 10, outputTokens: 5 },
  }));
}

/** A crew of two tasks: `research` ("Research {topic}") then `write` ("Write about {topic}"). */
export function researchCrew(llm: Llm = echoWithUsage(), options: { strictInputs?: boolean } = {}): Crew {
  const researcher = new Agent({ role: 'Researcher', llm, maxRetries: 0 });
  const writer = new Agent({ role: 'Writer', llm, maxRetries: 0 });
  return new Crew({
    name: 'research',
    ...options,
    tasks: [
      new Task({
        name: 'research',
        description: 'Research {topic}',
        expectedOutput: 'facts on {topic}',
        agent: researcher,
      }),
      new Task({
        name: 'write',
        description: 'Write about {topic}',
        expectedOutput: 'a text',
        agent: writer,
      }),
    ],
  });
}

/**
 * A support flow: `triage` runs a one-task crew on the ticket, router `route` sends a ticket that
 * says "refund" to `pay_back`, any other to `answer`.
 */
export function supportFlow(llm: Llm = echoWithUsage()) {
  const triager = new Agent({ role: 'Triager', llm, maxRetries: 0 });
  const crew = new Crew({
    name: 'triage',
    tasks: [new Task({ name: 'classify', description: 'Classify {ticket}', agent: triager })],
  });
  return createFlow({ name: 'support', initialState: { ticket: '' } })
    .start(
      'triage',
      async ({ state, kickoff }) => (await kickoff(crew, { inputs: { ticket: state.ticket } })).raw,
    )
    .router('route', 'triage', ({ state }) => (state.ticket.includes('refund') ? 'refund' : 'question'), {
      routes: ['refund', 'question'],
    })
    .listen('pay_back', 'refund', () => 'refunded')
    .listen('answer', 'question', ({ state }) => `answered ${state.ticket}`);
}
