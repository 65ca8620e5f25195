import type { Hono } from 'hono';
import { z } from 'zod';
import { jsonSchemaOf } from './describe.js';
import { COMMON_ERRORS, type ResponseSpec, type RouteGroup, type RouteSpec } from './route-group.js';
import { errorSchema } from './schemas.js';

/** What the document says of the server. */
export interface OpenApiInfo {
  title: string;
  version: string;
  /** Whether requests need the bearer token (every route then lists the scheme). */
  secured: boolean;
}

/** The parameters of one place (`path`, `query`) of a route, from its zod object. */
function parametersOf(where: 'path' | 'query' | 'header', schema: z.ZodObject | undefined) {
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

/** A response's content: JSON by its schema, an HTML page, or an event stream (text). */
function contentOf(response: ResponseSpec) {
  if (response.media !== undefined) return { content: { [response.media]: { schema: { type: 'string' } } } };
  if (response.schema === undefined) return {};
  return { content: { 'application/json': { schema: jsonSchemaOf(response.schema, 'output') } } };
}

const ERROR = { description: '', schema: errorSchema };

/**
 * The statuses every route of their kind may answer, beside those it names: 400 where the request
 * has anything to check (a bad id too), 401 behind the token, 408 past `listen`'s request time limit
 * (Node's answer, no body), 413 for a body over the limit, 500, and 503 where the store is read.
 */
function sharedResponses(spec: RouteSpec, secured: boolean): Record<number, ResponseSpec> {
  const checked = [spec.params, spec.query, spec.body, spec.headers].some((part) => part !== undefined);
  return {
    ...(checked ? { 400: { ...ERROR, description: COMMON_ERRORS[400] } } : {}),
    ...(secured && spec.open !== true ? { 401: { ...ERROR, description: COMMON_ERRORS[401] } } : {}),
    408: {
      description: 'The request was not received whole within the time limit (listen: requestTimeoutMs)',
    },
    ...(spec.method === 'post'
      ? { 413: { ...ERROR, description: 'The body is too large (payload_too_large)' } }
      : {}),
    500: { ...ERROR, description: COMMON_ERRORS[500] },
    ...(/^\/(runs|threads)\b/.test(spec.path) ? { 503: { ...ERROR, description: COMMON_ERRORS[503] } } : {}),
  };
}

/** An identifier for a route: `getRuns`, `postRunsIdResume`, `getOpenapiJson`, `getRoot` for `/`. */
export function operationIdOf(method: string, path: string): string {
  const words = path.split(/[^A-Za-z0-9]+/).filter((word) => word !== '');
  const tail = words.length === 0 ? ['root'] : words;
  return method + tail.map((word) => word[0]?.toUpperCase() + word.slice(1)).join('');
}

/** One operation of the document. */
function operationOf(spec: RouteSpec, secured: boolean) {
  const all = { ...sharedResponses(spec, secured), ...spec.responses };
  const responses = Object.fromEntries(
    Object.entries(all).map(([status, response]) => [
      status,
      { description: response.description, ...contentOf(response) },
    ]),
  );
  return {
    summary: spec.summary,
    operationId: operationIdOf(spec.method, spec.path),
    parameters: [
      ...parametersOf('path', spec.params),
      ...parametersOf('query', spec.query),
      ...parametersOf('header', spec.headers),
    ],
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
    200: {
      description: 'The OpenAPI 3.1 document of this server',
      schema: z.looseObject({ openapi: z.string(), paths: z.record(z.string(), z.unknown()) }),
    },
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
