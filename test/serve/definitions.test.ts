import { describe, expect, it } from 'vitest';
import type { StatecrewServer } from '../../src/serve/index.js';
import { authed, json, serverPerTest } from './serve-helpers.js';

let server: StatecrewServer;
serverPerTest((made) => {
  ({ server } = made);
});

type View = Record<string, unknown> & { name: string; inputs: Record<string, unknown> };

describe('GET /definitions', () => {
  it('describes each crew: process, tasks, placeholders as JSON Schema, Mermaid and machine config', async () => {
    const { definitions } = (await json(await server.request('/definitions', authed()))) as {
      definitions: View[];
    };
    expect(definitions.map((d) => [d.name, d.kind])).toEqual([
      ['research', 'crew'],
      ['refunds', 'crew'],
      ['slow', 'crew'],
      ['review', 'flow'],
      ['order', 'flow'],
    ]);
    const research = definitions[0] as View;
    expect(research.process).toBe('sequential');
    expect(research.tasks).toEqual([
      {
        name: 'research',
        description: 'Research {topic}',
        expectedOutput: 'notes',
        agent: 'Researcher',
        humanInput: false,
      },
    ]);
    expect(research.inputs).toMatchObject({
      type: 'object',
      properties: { topic: { type: 'string' } },
      required: ['topic'],
    });
    expect(research.mermaid).toMatch(/^flowchart/);
    expect(research.machine).toMatchObject({ id: expect.any(String), states: expect.any(Object) });
  });

  it('describes each flow: steps with triggers and routes, its zod state as JSON Schema, or an open object', async () => {
    const { definitions } = (await json(await server.request('/definitions', authed()))) as {
      definitions: View[];
    };
    const review = definitions.find((d) => d.name === 'review') as View;
    expect(review.steps).toEqual([
      { name: 'draft', kind: 'start', trigger: null, routes: null },
      { name: 'approve', kind: 'human', trigger: 'draft', routes: ['yes', 'no'] },
      { name: 'publish', kind: 'listen', trigger: 'yes', routes: null },
      { name: 'discard', kind: 'listen', trigger: 'no', routes: null },
    ]);
    expect(review.inputs).toMatchObject({ type: 'object' });
    expect(review.inputs.description).toContain('keys: title');
    const order = definitions.find((d) => d.name === 'order') as View;
    expect(order.inputs).toMatchObject({
      type: 'object',
      properties: { item: { type: 'string' }, paid: { type: 'number', default: 0 } },
      required: ['item'],
    });
    const machine = review.machine as { states: Record<string, unknown> };
    expect(Object.keys(machine.states).length).toBeGreaterThan(1);
    expect(JSON.parse(JSON.stringify(review.machine))).toEqual(review.machine);
  });
});

interface Operation {
  operationId: string;
  parameters: { name: string; in: string; required: boolean; schema: unknown }[];
  requestBody?: { content: { 'application/json': { schema: Record<string, unknown> } } };
  responses: Record<string, { description: string; content?: Record<string, { schema: unknown }> }>;
  security?: unknown[];
}

describe('GET /openapi.json', () => {
  it('is an OpenAPI 3.1 document listing every route, with its body and parameters, and the bearer scheme', async () => {
    const response = await server.request('/openapi.json', authed());
    expect(response.status).toBe(200);
    const doc = JSON.parse(await response.text()) as {
      openapi: string;
      info: { title: string; version: string };
      paths: Record<string, Record<string, Operation>>;
      components: { securitySchemes: Record<string, unknown> };
      security: unknown[];
    };
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.title).toBe('statecrew');
    expect(doc.components.securitySchemes).toEqual({ bearer: { type: 'http', scheme: 'bearer' } });
    expect(doc.security).toEqual([{ bearer: [] }]);
    const routes = Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(routes.sort()).toEqual(
      [
        'GET /',
        'GET /admission',
        'GET /definitions',
        'GET /evals',
        'GET /evals/{id}',
        'GET /evals/{id}/coverage.svg',
        'GET /openapi.json',
        'GET /runs',
        'GET /runs/{id}',
        'GET /runs/{id}/agui',
        'GET /runs/{id}/events',
        'GET /runs/{id}/view',
        'GET /runs/{id}/history',
        'GET /runs/{a}/diff/{b}',
        'GET /threads/{thread}/runs',
        'POST /runs',
        'POST /runs/{id}/fork',
        'POST /runs/wait',
        'POST /runs/{id}/abort',
        'POST /runs/{id}/agui',
        'POST /runs/{id}/resume',
        'POST /runs/{id}/signal',
      ].sort(),
    );
    const ids = new Set<string>();
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const operation of Object.values(methods)) {
        expect(Object.keys(operation.responses).length).toBeGreaterThan(0);
        // Every route needs the token but the studio page, which holds no data.
        if (path === '/') expect(operation.security).toEqual([]);
        else expect(operation.responses['401']).toBeDefined();
        ids.add(operation.operationId);
      }
    }
    expect(ids.size).toBe(routes.length);
    const start = doc.paths['/runs']?.post as Operation;
    const body = start.requestBody?.content['application/json'].schema;
    expect(body).toMatchObject({ type: 'object', required: ['definition'], additionalProperties: false });
    expect(Object.keys(body?.properties as object)).toEqual(['definition', 'inputs', 'id', 'thread']);
    expect(start.responses['202']?.content?.['application/json']).toBeDefined();
    const list = doc.paths['/runs']?.get as Operation;
    expect(list.parameters.map((p) => [p.name, p.in, p.required])).toEqual([
      ['status', 'query', false],
      ['definition', 'query', false],
      ['thread', 'query', false],
      ['createdFrom', 'query', false],
      ['createdBefore', 'query', false],
      ['limit', 'query', false],
      ['cursor', 'query', false],
    ]);
    const one = doc.paths['/runs/{id}']?.get as Operation;
    expect(one.parameters).toEqual([expect.objectContaining({ name: 'id', in: 'path', required: true })]);
    const signal = doc.paths['/runs/{id}/signal']?.post as Operation;
    expect(signal.requestBody?.content['application/json'].schema).toMatchObject({ required: ['event'] });
  });
});
