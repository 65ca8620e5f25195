/**
 * The page's wiring: pointer, wheel and keys on the graph's box (`bindViewport`), the toolbar and
 * search box (`bindToolbar`), clicks and Enter/Space on nodes, timeline rows and failure entries
 * (`bindChoosing`), and `refresh()`, which re-reads the data and redraws what depends on it. A page
 * that swaps in new data (or a new graph) dispatches `statecrew:refresh` on the document.
 */
export const CONTROLS_SCRIPT = `
  const PAN_STEP = 60;
  const ARROWS = { ArrowLeft: [1, 0], ArrowRight: [-1, 0], ArrowUp: [0, 1], ArrowDown: [0, -1] };
  const bindDrag = (box) => {
    const drag = { id: null, x: 0, y: 0, moved: false };
    box.addEventListener('pointerdown', (event) => {
      if (event.button !== 0) return;
      Object.assign(drag, { id: event.pointerId, x: event.clientX, y: event.clientY, moved: false });
    });
    box.addEventListener('pointermove', (event) => {
      if (drag.id !== event.pointerId) return;
      const dx = event.clientX - drag.x;
      const dy = event.clientY - drag.y;
      if (!drag.moved && Math.hypot(dx, dy) < 4) return;
      if (!drag.moved) box.setPointerCapture(event.pointerId);
      drag.moved = true;
      box.classList.add('panning');
      Object.assign(drag, { x: event.clientX, y: event.clientY });
      panBy(dx, dy);
    });
    const end = (event) => {
      if (drag.id !== event.pointerId) return;
      drag.id = null;
      box.classList.remove('panning');
    };
    box.addEventListener('pointerup', end);
    box.addEventListener('pointercancel', end);
    // The click that ends a drag chooses nothing.
    box.addEventListener('click', (event) => {
      if (!drag.moved) return;
      drag.moved = false;
      event.stopPropagation();
    }, true);
  };
  const bindViewport = () => {
    const box = byId('graph-viewport');
    if (!box || box.getAttribute('data-bound') === 'yes') return;
    box.setAttribute('data-bound', 'yes');
    bindDrag(box);
    box.addEventListener('wheel', (event) => {
      if (!event.ctrlKey && !event.metaKey) return;
      event.preventDefault();
      const at = box.getBoundingClientRect();
      zoomAt(Math.exp(-event.deltaY * 0.002), event.clientX - at.left, event.clientY - at.top);
    }, { passive: false });
    box.addEventListener('focusin', (event) => {
      const node = event.target instanceof Element ? event.target.closest('[data-node]') : null;
      if (node) showNode(node.getAttribute('data-node'), false);
    });
  };
  const ZOOMS = { in: () => zoomAt(1.25), out: () => zoomAt(0.8), fit: () => fitView() };
  const bindToolbar = () => {
    for (const button of document.querySelectorAll('[data-zoom]')) {
      button.addEventListener('click', () => ZOOMS[button.getAttribute('data-zoom')]());
    }
    const input = byId('graph-search');
    if (!input) return;
    input.addEventListener('input', runSearch);
    input.addEventListener('keydown', (event) => {
      if (event.key === 'Enter') stepSearch(event.shiftKey ? -1 : 1);
      else if (event.key === 'Escape') {
        input.value = '';
        runSearch();
      } else return;
      event.preventDefault();
    });
  };
  const zoomKey = (event) => {
    if (event.key === '+' || event.key === '=') ZOOMS.in();
    else if (event.key === '-' || event.key === '_') ZOOMS.out();
    else if (event.key === '0') ZOOMS.fit();
    else return false;
    return true;
  };
  const arrowKey = (event) => {
    const box = byId('graph-viewport');
    const step = ARROWS[event.key];
    if (!step || !box || !(event.target instanceof Node) || !box.contains(event.target)) return false;
    panBy(step[0] * PAN_STEP, step[1] * PAN_STEP);
    return true;
  };
  const onKey = (event) => {
    if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey || typing(event.target)) return;
    if (zoomKey(event) || arrowKey(event)) event.preventDefault();
  };
  const choose = (target) => {
    const failure = target.getAttribute('data-failure');
    if (failure !== null) {
      select(failure);
      showNode(failure, true);
      return;
    }
    const id = target.getAttribute('data-node') || target.getAttribute('data-timeline-node');
    select(id, target.getAttribute('data-run'), target.getAttribute('data-message'));
  };
  const CHOOSABLE = '[data-node], [data-timeline-node], [data-failure]';
  const bindChoosing = () => {
    document.addEventListener('click', (event) => {
      const target = event.target instanceof Element ? event.target.closest(CHOOSABLE) : null;
      if (target) choose(target);
    });
    document.addEventListener('keydown', (event) => {
      if (event.key !== 'Enter' && event.key !== ' ') return;
      const target = event.target instanceof Element ? event.target.closest('[data-node], [data-timeline-node]') : null;
      if (!target) return;
      event.preventDefault();
      choose(target);
    });
    document.addEventListener('keydown', onKey);
  };
  const refresh = () => {
    loadData();
    bindViewport();
    sizeBox();
    renderFailures();
    runSearch();
    if (view.fitted) fitView();
    else applyView();
    // New data redraws the chosen node's details (a live page: its run went on).
    const chosen = state.selected;
    if (chosen && state.nodes.has(chosen.id)) select(chosen.id, chosen.runId, chosen.message);
  };
`;
