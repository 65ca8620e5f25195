import { describe, expect, it } from 'vitest';
import type { AnyActorRef, InspectionEvent } from 'xstate';
import { Crew, createFlow, type StatecrewEvent, Task } from '../../../src/index.js';
import { createScriptedModel } from '../../../src/testing.js';
import { agent, echoModel } from '../../helpers.js';

function triageCrew() {
  const llm = echoModel();
  const triager = agent('Triager', llm);
  return {
    llm,
    crew: new Crew({
      tasks: [
        new Task({ name: 'classify', description: 'Classify {ticket}', agent: triager }),
        new Task({ name: 'summarize', description: 'Summarize {ticket}', agent: triager }),
      ],
    }),
  };
}

describe('crews inside flows', () => {
  it('runs a crew from a step and returns its CrewOutput', async () => {
    const { crew } = triageCrew();
    const flow = createFlow({ name: 'support', initialState: { ticket: '' } })
      .start(
        'triage',
        async ({ state, kickoff }) => (await kickoff(crew, { inputs: { ticket: state.ticket } })).raw,
      )
      .listen('reply', 'triage', ({ payload }) => `Reply based on: ${String(payload)}`);
    const out = await flow.kickoff({ inputs: { ticket: 'refund #12' } });
    expect(out.outputs.triage).toBe('Triager: Summarize refund #12');
    expect(out.output).toBe('Reply based on: Triager: Summarize refund #12');
  });

  it('makes the crew’s task actors descendants of the step actor, visible to the flow’s inspector', async () => {
    const { crew } = triageCrew();
    const inspected: InspectionEvent[] = [];
    const flow = createFlow({ name: 'support', initialState: {} }).start('triage', async ({ kickoff }) => {
      await kickoff(crew, { inputs: { ticket: 't' } });
    });
    const run = flow.run({ inspect: (e) => inspected.push(e) });
    await run.result;
    const actors = inspected.filter((e) => e.type === '@xstate.actor').map((e) => e.actorRef as AnyActorRef);
    const classify = actors.find((a) => a.id === 'classify');
    const chain: string[] = [];
    for (let at: AnyActorRef | undefined = classify; at !== undefined; at = at._parent) chain.push(at.id);
    expect(chain[0]).toBe('classify');
    expect(chain[1]).toBe('sequential');
    expect(chain[2]).toBe('triage');
    expect(chain[3]).toBe(run.actor.id);
    expect(chain).toHaveLength(4);
    // The flow's steps are run by one executor actor, a child of the flow's supervisor.
    expect(actors.filter((a) => a.id === 'steps').map((a) => a._parent?.id)).toEqual([run.actor.id]);
  });

  it('tags the crew’s events with the step in the flow’s events$', async () => {
    const { crew } = triageCrew();
    const flow = createFlow({ name: 'support', initialState: {} }).start('triage', ({ kickoff }) =>
      kickoff(crew),
    );
    const run = flow.run();
    const events: StatecrewEvent[] = [];
    run.events$.subscribe((e) => events.push(e));
    await run.result;
    const crewEvents = events.filter((e) => e.step !== undefined && e.runId !== run.id);
    expect(crewEvents.map((e) => e.type)).toContain('node.completed');
    expect(crewEvents.every((e) => e.step === 'triage')).toBe(true);
    // The step's own run speaks the same vocabulary, under the flow's id.
    const stepEvents = events.filter((e) => e.step !== undefined && e.runId === run.id);
    expect(stepEvents.map((e) => `${e.type}:${'nodeId' in e ? e.nodeId : ''}`)).toEqual([
      'node.ready:triage',
      'node.started:triage',
      'node.completed:triage',
    ]);
    expect(events.filter((e) => e.type === 'flow.step' && e.step === undefined)).toHaveLength(2);
  });

  it('cancels the crew with the flow: its model call is aborted and its supervisor ends aborted', async () => {
    const hanging = createScriptedModel(() => () => new Promise<string>(() => {}));
    const crew = new Crew({
      tasks: [new Task({ name: 'hang', description: 'hang', agent: agent('A', hanging) })],
    });
    const controller = new AbortController();
    const inspected: InspectionEvent[] = [];
    const flow = createFlow({ name: 'cancel', initialState: {} }).start('triage', ({ kickoff }) =>
      kickoff(crew),
    );
    const run = flow.run({ signal: controller.signal, inspect: (e) => inspected.push(e) });
    await new Promise<void>((resolve) => {
      run.events$.subscribe(
        (e) => e.type === 'node.started' && e.step === 'triage' && e.runId !== run.id && resolve(),
      );
    });
    controller.abort(new Error('stop'));
    await expect(run.result).rejects.toThrow('stop');
    expect(hanging.aborted).toHaveLength(1);
    const crewSupervisor = inspected
      .filter((e) => e.type === '@xstate.actor')
      .map((e) => e.actorRef as AnyActorRef)
      .find((a) => a.id === 'sequential');
    expect(crewSupervisor?.getSnapshot().value).toBe('aborted');
  });
});
