import type { AnyActorRef } from 'xstate';
import type { MemoryEntry } from '../../types.js';
import { memoryEntry } from '../crew/memory.js';
import { SUMMARY_NODE } from '../crew/summary.js';
import type { Clock } from '../engine/clock.js';
import type { EventHub } from '../engine/event-hub.js';
import type { StepContext } from './definition.js';
import type { WithId } from './state.js';
import type { StepRunSpec } from './step-runner.js';

/** What a step run's context reads of its flow run. */
export interface StepContextRun<S> {
  state: WithId<S>;
  inputs: Record<string, unknown>;
  hub: EventHub;
  clock: Clock;
  /** Every task run the crews of this run's steps completed, in order. */
  results: MemoryEntry[];
  /** A read-only view of every completed step's latest output. */
  outputs: Readonly<Record<string, unknown>>;
}

/** The context a step run's body gets; `kickoff` runs a crew as the step's child, its events relayed. */
export function stepContext<S>(
  spec: StepRunSpec<S>,
  signal: AbortSignal,
  self: AnyActorRef,
  run: StepContextRun<S>,
): StepContext<WithId<S>> {
  return {
    state: run.state,
    payload: spec.payload,
    inputs: run.inputs,
    outputs: run.outputs,
    flowId: run.state.id,
    signal,
    kickoff(crew, crewOptions = {}) {
      const crewRun = crew.run({ ...crewOptions, signal, parent: self, clock: run.clock });
      crewRun.events$.subscribe((event) => {
        if (event.type === 'node.completed' && event.nodeId !== SUMMARY_NODE) {
          run.results.push(memoryEntry(event.nodeId, event.output));
        }
        run.hub.relay(event, spec.step.name);
      });
      return crewRun.result;
    },
    results: () => [...run.results],
  };
}
