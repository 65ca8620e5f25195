import type { Hono } from 'hono';
import { describeDefinition } from './describe.js';
import { COMMON_ERRORS, type RouteGroup, type ServeContext } from './route-group.js';
import { definitionsSchema, errorSchema } from './schemas.js';

/** `GET /definitions`: the served crews and flows, with their inputs, pictures and machines. */
export const definitionRoutes: RouteGroup = {
  specs: [
    {
      method: 'get',
      path: '/definitions',
      summary: 'The served crews and flows: steps or tasks, inputs (JSON Schema), Mermaid and machine',
      responses: {
        200: { description: 'Every served definition', schema: definitionsSchema },
        401: { description: COMMON_ERRORS[401], schema: errorSchema },
      },
    },
  ],
  mount(app: Hono, { catalog }: ServeContext) {
    // Definitions do not change while the server runs: described once, on the first request.
    let described: ReturnType<typeof describeDefinition>[] | undefined;
    app.get('/definitions', (c) => {
      described ??= catalog.list().map(describeDefinition);
      return c.json({ definitions: described });
    });
  },
};
