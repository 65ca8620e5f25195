import { z } from 'zod';
import type { Crew } from '../runtime/crew/crew.js';
import { crewInputSchema, flowInputSchema } from '../runtime/input-schema.js';
import { toJson } from '../stores/store.js';
import type { ServedDefinition, ServedFlow } from './definitions.js';

/** A served definition as `GET /definitions` describes it. */
export interface DefinitionView {
  name: string;
  kind: 'crew' | 'flow';
  /** A crew's process. */
  process?: string;
  /** A crew's tasks, in order. */
  tasks?: {
    name: string;
    description: string;
    expectedOutput: string;
    agent: string | null;
    humanInput: boolean;
  }[];
  /** A flow's steps, in order. */
  steps?: { name: string; kind: string; trigger: unknown; routes: string[] | null }[];
  /** The inputs a run takes, as JSON Schema. */
  inputs: Record<string, unknown>;
  /** A Mermaid flowchart of it. */
  mermaid: string;
  /** Its control flow as a machine config Stately reads. */
  machine: Record<string, unknown>;
}

/**
 * A zod schema as JSON Schema (of what it takes, `input`, or what it gives, `output`); what JSON
 * Schema cannot say is left open rather than refused.
 */
export function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output' = 'input'): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { unrepresentable: 'any', io });
  return rest;
}

function crewView(crew: Crew): DefinitionView {
  return {
    name: crew.name,
    kind: 'crew',
    process: crew.process,
    tasks: crew.tasks.map((task) => ({
      name: crew.nodeIdOf(task) ?? task.name ?? '',
      description: task.description,
      expectedOutput: task.expectedOutput,
      agent: task.agent?.role ?? null,
      humanInput: task.humanInput,
    })),
    inputs: jsonSchemaOf(crewInputSchema(crew)),
    mermaid: crew.toMermaid(),
    machine: toJson(crew.toMachine().config) as Record<string, unknown>,
  };
}

function flowView(flow: ServedFlow): DefinitionView {
  return {
    name: flow.name,
    kind: 'flow',
    steps: flow.definition.steps.map((step) => ({
      name: step.name,
      kind: step.kind,
      trigger: toJson(step.trigger ?? null),
      routes: step.routes === undefined ? null : [...step.routes],
    })),
    inputs: jsonSchemaOf(flowInputSchema(flow)),
    mermaid: flow.toMermaid(),
    machine: toJson(flow.toMachine().config) as Record<string, unknown>,
  };
}

/** What `GET /definitions` says of one served definition. */
export function describeDefinition(served: ServedDefinition): DefinitionView {
  return served.kind === 'crew' ? crewView(served.crew) : flowView(served.flow);
}
