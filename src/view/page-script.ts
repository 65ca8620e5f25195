import { COMPOSED_SCRIPT } from './script/composed.js';
import { CONTROLS_SCRIPT } from './script/controls.js';
import { DETAILS_SCRIPT } from './script/details.js';
import { DOM_SCRIPT } from './script/dom.js';
import { FAILURES_SCRIPT } from './script/failures.js';
import { SEARCH_SCRIPT } from './script/search.js';
import { VIEWPORT_SCRIPT } from './script/viewport.js';

/**
 * The page's only script, put together from its parts (each a set of small functions over the DOM):
 * it reads the run's data from the JSON block, fits the graph to its box and lets it zoom, pan and
 * search, lists the failed and blocked nodes, and, when a node, a timeline row or a failure is
 * chosen, fills the details panel. It builds every element with `createElement` and sets text with
 * `textContent` only, so nothing a model or a user wrote is ever parsed as HTML. A page that swaps in
 * new data dispatches `statecrew:refresh` on the document to redraw what depends on it (the chosen node's
 * details too); with `detail: { fresh: true }` (another run) it fits the new graph and forgets the
 * chosen node. Its text is fixed: the page's Content-Security-Policy allows it by hash.
 */
export const PAGE_SCRIPT = `
(() => {
  'use strict';
${DOM_SCRIPT}${DETAILS_SCRIPT}${COMPOSED_SCRIPT}${VIEWPORT_SCRIPT}${SEARCH_SCRIPT}${FAILURES_SCRIPT}${CONTROLS_SCRIPT}
  bindToolbar();
  bindChoosing();
  document.addEventListener('statecrew:refresh', (event) => {
    // Another run swapped in: fit it, and forget the node chosen in the one before.
    if (event.detail && event.detail.fresh) {
      view.fitted = true;
      state.selected = null;
    }
    refresh();
  });
  window.addEventListener('resize', () => {
    sizeBox();
    if (view.fitted) fitView();
    else applyView();
  });
  refresh();
})();
`;
