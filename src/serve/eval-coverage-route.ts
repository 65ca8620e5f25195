import type { Hono } from 'hono';
import { EvalNotFoundError } from '../errors.js';
import { readEvalReport } from '../evals/report-store.js';
import { coverageSvg } from '../view/coverage-svg.js';
import { toCrewView } from '../view/crew-view.js';
import { toFlowView } from '../view/flow-view.js';
import type { RunView } from '../view/model.js';
import type { ServedDefinition } from './definitions.js';
import { evalParamsSchema } from './eval-schemas.js';
import { parseRequest } from './http-errors.js';
import { COMMON_ERRORS, type RouteGroup, type ServeContext } from './route-group.js';
import { errorSchema } from './schemas.js';

const WHERE = 'GET /evals/:id/coverage.svg';

/** A served definition's picture before any run, as the run view draws it. */
const definitionView = (served: ServedDefinition): RunView =>
  served.kind === 'crew' ? toCrewView(served.crew) : toFlowView(served.flow);

/** What the picture's response says besides its body: an SVG, never sniffed, framed or cached. */
const SVG_HEADERS = {
  'Content-Type': 'image/svg+xml; charset=utf-8',
  'Content-Security-Policy': "default-src 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Cache-Control': 'no-store',
};

/**
 * `GET /evals/:id/coverage.svg`: the report's target (a served crew or flow, by `report.target.name`)
 * drawn as the run view draws its definition, each edge with how many of the dataset's runs took it,
 * edges and steps none took dashed red with the class `untaken`. 404 `eval_not_found` for a report the
 * store does not keep, `unknown_definition` when the target is not served.
 */
export const evalCoverageRoutes: RouteGroup = {
  specs: [
    {
      method: 'get',
      path: '/evals/{id}/coverage.svg',
      summary:
        "An evaluation's coverage drawn on its target's picture: each edge with how many runs took it, what no run took dashed red (class untaken)",
      params: evalParamsSchema,
      responses: {
        200: { description: 'The picture, as SVG', media: 'image/svg+xml' },
        401: { description: COMMON_ERRORS[401], schema: errorSchema },
        404: {
          description: 'No such report (eval_not_found), or its target is not served (unknown_definition)',
          schema: errorSchema,
        },
      },
    },
  ],
  mount(app: Hono, { store, catalog }: ServeContext) {
    app.get('/evals/:id/coverage.svg', async (c) => {
      const { id } = parseRequest(WHERE, 'params', evalParamsSchema, c.req.param());
      const report = await readEvalReport(store, id);
      if (report === undefined) throw new EvalNotFoundError(WHERE, id);
      const view = definitionView(catalog.get(report.target.name));
      return c.body(coverageSvg(view, report.coverage), 200, SVG_HEADERS);
    });
  },
};
