import type { Hono } from 'hono';
import { CONTENT_SECURITY_POLICY, renderRunView } from '../view/html.js';
import { parseRequest } from './http-errors.js';
import { COMMON_ERRORS, type RouteGroup, type ServeContext } from './route-group.js';
import { runPageView } from './run-page.js';
import { errorSchema, runParamsSchema } from './schemas.js';

/** The headers of every HTML page the server sends: its policy, and nothing sniffed, framed or cached. */
export function pageHeaders(policy: string): Record<string, string> {
  return {
    'Content-Security-Policy': policy,
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
    'Referrer-Policy': 'no-referrer',
    'Cache-Control': 'no-store',
  };
}

/** `GET /runs/:id/view`: a run as the run view's self-contained page, as it stands now (served definition or not). */
export const viewRoutes: RouteGroup = {
  specs: [
    {
      method: 'get',
      path: '/runs/{id}/view',
      summary:
        "The run as a self-contained HTML page (statecrew/view): its graph coloured by what it did so far, its timeline and each node's details; a run of a definition this server does not serve is drawn from what it kept alone",
      params: runParamsSchema,
      responses: {
        200: { description: 'The page, with a strict Content-Security-Policy', media: 'text/html' },
        401: { description: COMMON_ERRORS[401], schema: errorSchema },
        404: {
          description: 'No such run (run_not_found)',
          schema: errorSchema,
        },
      },
    },
  ],
  mount(app: Hono, { store, catalog }: ServeContext) {
    app.get('/runs/:id/view', async (c) => {
      const { id } = parseRequest('GET /runs/:id/view', 'params', runParamsSchema, c.req.param());
      const html = renderRunView(await runPageView(store, catalog, id));
      return c.html(html, 200, pageHeaders(CONTENT_SECURITY_POLICY));
    });
  },
};
