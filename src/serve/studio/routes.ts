import type { Hono } from 'hono';
import type { RouteGroup } from '../route-group.js';
import { pageHeaders } from '../view-routes.js';
import { STUDIO_PAGE, STUDIO_POLICY } from './page.js';

/**
 * `GET /`: the studio page. It is the one route served without the token — it holds no data, and
 * asks for the token before it calls any other route.
 */
export const studioRoutes: RouteGroup = {
  specs: [
    {
      method: 'get',
      path: '/',
      summary:
        'The studio: a page that lists runs live, opens one as a live graph, timeline and details, answers what it waits for, and starts runs (no token needed for the page itself)',
      responses: {
        200: { description: 'The page, with a strict Content-Security-Policy', media: 'text/html' },
      },
      open: true,
    },
  ],
  mount(app: Hono) {
    app.get('/', (c) => c.html(STUDIO_PAGE, 200, pageHeaders(STUDIO_POLICY)));
  },
};
