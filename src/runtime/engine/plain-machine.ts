import {
  type AnyActorRef,
  type AnyEventObject,
  createMachine,
  type EventObject,
  type MachineContext,
  type MetaObject,
  type NonReducibleUnknown,
  type ParameterizedObject,
  type ProvidedActor,
  type StateMachine,
  type StateSchema,
  type StateValue,
} from 'xstate';

/** A state of a {@link PlainMachine}'s config: events to targets, nested states, no functions. */
export interface PlainStateConfig {
  type?: 'final' | 'parallel';
  description?: string;
  on?: Record<string, string>;
  initial?: string;
  states?: Record<string, PlainStateConfig>;
}

/** A plain XState machine: no context, no actions or guards, JSON-safe; it opens in Stately. */
export type PlainMachine = StateMachine<
  MachineContext,
  AnyEventObject,
  Record<string, AnyActorRef | undefined>,
  ProvidedActor,
  ParameterizedObject,
  ParameterizedObject,
  string,
  StateValue,
  string,
  unknown,
  NonReducibleUnknown,
  EventObject,
  MetaObject,
  StateSchema
>;

/** Builds a {@link PlainMachine} from a config of states and event targets. */
export function createPlainMachine(config: PlainStateConfig & { id: string }): PlainMachine {
  return createMachine(config) as PlainMachine;
}
