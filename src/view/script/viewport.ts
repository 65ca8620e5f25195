/**
 * The graph's box: the picture fitted to it at load (never past 100%), zoomed (`zoomAt`) about a
 * point of the box, panned (`panBy`), and a node brought into sight (`showNode`), all by moving the
 * SVG's `viewBox`. `view.scale` is screen pixels per unit of the picture; `view.x`, `view.y` the
 * picture's point at the box's top left corner. `bindViewport()` wires drag, Ctrl/⌘ + wheel and
 * focus to it, once per box.
 */
export const VIEWPORT_SCRIPT = `
  const view = { x: 0, y: 0, scale: 1, fitted: true };
  const MAX_SCALE = 4;
  const graph = () => {
    const box = byId('graph-viewport');
    const svg = box && box.querySelector('svg.graph');
    if (!svg) return null;
    const width = Number(svg.getAttribute('data-width')) || 1;
    const height = Number(svg.getAttribute('data-height')) || 1;
    return { box, svg, width, height, boxWidth: box.clientWidth || 1, boxHeight: box.clientHeight || 1 };
  };
  const fitScale = (g) => Math.min(g.boxWidth / g.width, g.boxHeight / g.height, 1);
  const minScale = (g) => Math.min(fitScale(g) / 2, 0.25);
  const clampView = (g) => {
    const w = g.boxWidth / view.scale;
    const h = g.boxHeight / view.scale;
    // The picture may move until its far edge reaches the box's middle, no further.
    view.x = Math.min(Math.max(view.x, -w / 2), g.width - w / 2);
    view.y = Math.min(Math.max(view.y, -h / 2), g.height - h / 2);
  };
  const applyView = () => {
    const g = graph();
    if (!g) return;
    clampView(g);
    const box = [view.x, view.y, g.boxWidth / view.scale, g.boxHeight / view.scale];
    g.svg.setAttribute('viewBox', box.map((v) => Math.round(v * 100) / 100).join(' '));
    g.svg.setAttribute('data-scale', String(view.scale));
    const level = byId('zoom-level');
    if (level) level.textContent = Math.round(view.scale * 100) + '%';
  };
  const centreOn = (g, x, y) => {
    view.x = x - g.boxWidth / view.scale / 2;
    view.y = y - g.boxHeight / view.scale / 2;
  };
  const fitView = () => {
    const g = graph();
    if (!g) return;
    view.scale = fitScale(g);
    centreOn(g, g.width / 2, g.height / 2);
    view.fitted = true;
    applyView();
  };
  const zoomAt = (factor, atX, atY) => {
    const g = graph();
    if (!g) return;
    const x = atX === undefined ? g.boxWidth / 2 : atX;
    const y = atY === undefined ? g.boxHeight / 2 : atY;
    const next = Math.min(Math.max(view.scale * factor, minScale(g)), MAX_SCALE);
    view.x += x / view.scale - x / next;
    view.y += y / view.scale - y / next;
    view.scale = next;
    view.fitted = false;
    applyView();
  };
  const panBy = (dx, dy) => {
    view.x -= dx / view.scale;
    view.y -= dy / view.scale;
    view.fitted = false;
    applyView();
  };
  const nodeBox = (e) => {
    const moved = e.transform.baseVal.consolidate();
    const rect = e.querySelector('rect.box');
    return {
      x: moved ? moved.matrix.e : 0,
      y: moved ? moved.matrix.f : 0,
      w: rect ? Number(rect.getAttribute('width')) : 0,
      h: rect ? Number(rect.getAttribute('height')) : 0,
    };
  };
  // A node in sight: zoomed to at least 100% and centred when asked, else moved only if outside.
  const showNode = (id, zoom) => {
    const g = graph();
    const e = nodeElement(id);
    if (!g || !e) return;
    const b = nodeBox(e);
    if (zoom) view.scale = Math.max(view.scale, 1);
    const w = g.boxWidth / view.scale;
    const h = g.boxHeight / view.scale;
    const inside = b.x >= view.x && b.y >= view.y && b.x + b.w <= view.x + w && b.y + b.h <= view.y + h;
    if (zoom || !inside) centreOn(g, b.x + b.w / 2, b.y + b.h / 2);
    view.fitted = false;
    applyView();
  };
  // A small graph's box is no taller than the graph at the width it has.
  const sizeBox = () => {
    const g = graph();
    if (!g) return;
    g.box.style.maxHeight = Math.ceil(g.height * Math.min(1, g.boxWidth / g.width) + 16) + 'px';
  };
`;
