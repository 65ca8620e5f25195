import type { Hono } from 'hono';
import type { z } from 'zod';
import { jsonSchemaOf } from './describe.js';
import type { RouteGroup, RouteSpec } from './route-group.js';
import { errorSchema } from './schemas.js';

/** What the document says of the server. */
export interface OpenApiInfo {
  title: string;
  version: string;
  /** Whether requests need the bearer token (every route then lists the scheme). */
  secured: boolean;
}

/** The parameters of one place (`path`, `query`) of a route, from its zod object. */
function parametersOf(where: 'path' | 'query', schema: z.ZodObject | undefined) {
  if (schema === undefined) return [];
  return Object.entries(schema.shape).map(([name, field]) => {
    const type = field as z.ZodType;
    const json = jsonSchemaOf(type, 'output');
    const { description, ...rest } = json;
    return {
      name,
      in: where,
      required: where === 'path' || !type.safeParse(undefined).success,
      ...(typeof description === 'string' ? { description } : {}),
      schema: rest,
    };
  });
}

/** One operation of the document. */
function operationOf(spec: RouteSpec, secured: boolean) {
  const responses = Object.fromEntries(
    Object.entries(spec.responses).map(([status, response]) => [
      status,
      {
        description: response.description,
        ...(response.schema === undefined
          ? {}
          : { content: { 'application/json': { schema: jsonSchemaOf(response.schema, 'output') } } }),
      },
    ]),
  );
  return {
    summary: spec.summary,
    operationId: `${spec.method}${spec.path.replace(/[{}]/g, '').replace(/\/(\w)/g, (_m, c: string) => c.toUpperCase())}`,
    parameters: [...parametersOf('path', spec.params), ...parametersOf('query', spec.query)],
    ...(spec.body === undefined
      ? {}
      : {
          requestBody: {
            required: true,
            content: { 'application/json': { schema: jsonSchemaOf(spec.body, 'input') } },
          },
        }),
    responses,
    ...(secured && spec.open !== true ? {} : { security: [] }),
  };
}

/**
 * An OpenAPI 3.1 document of `specs`: every route with its parameters, body and responses as JSON
 * Schema made from the zod schemas the routes check with, and the bearer security scheme.
 */
export function openApiDocument(specs: readonly RouteSpec[], info: OpenApiInfo): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const spec of specs) {
    paths[spec.path] ??= {};
    (paths[spec.path] as Record<string, unknown>)[spec.method] = operationOf(spec, info.secured);
  }
  return {
    openapi: '3.1.0',
    info: { title: info.title, version: info.version },
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      schemas: { Error: jsonSchemaOf(errorSchema, 'output') },
    },
    security: [{ bearer: [] }],
    paths,
  };
}

/** The spec of `GET /openapi.json` itself. */
const OPENAPI_SPEC: RouteSpec = {
  method: 'get',
  path: '/openapi.json',
  summary: 'This document',
  responses: {
    200: { description: 'The OpenAPI 3.1 document of this server' },
    401: { description: 'No bearer token, or the wrong one (unauthorized)', schema: errorSchema },
  },
};

/** `GET /openapi.json`: the document of every group's routes, this one's included. */
export function openApiRoutes(groups: readonly RouteGroup[], info: OpenApiInfo): RouteGroup {
  const specs = [...groups.flatMap((group) => group.specs), OPENAPI_SPEC];
  return {
    specs: [OPENAPI_SPEC],
    mount(app: Hono) {
      let document: Record<string, unknown> | undefined;
      app.get('/openapi.json', (c) => {
        document ??= openApiDocument(specs, info);
        return c.json(document);
      });
    },
  };
}
