/**
 * The page script's common ground: the run's data read from the JSON block (`state`, re-read by
 * `loadData()`), and small helpers over the DOM. `el` builds an element and sets its text with
 * `textContent` only; `token` keeps a class name to letters, digits and dashes.
 */
export const DOM_SCRIPT = `
  const state = { data: {}, nodes: new Map(), selected: null };
  const byId = (id) => document.getElementById(id);
  const loadData = () => {
    const source = byId('run-data');
    state.data = JSON.parse((source && source.textContent) || '{}');
    state.nodes = new Map((state.data.nodes || []).map((node) => [node.id, node]));
  };
  const el = (tag, className, text) => {
    const e = document.createElement(tag);
    if (className) e.className = className;
    if (text !== undefined) e.textContent = String(text);
    return e;
  };
  const token = (value) => String(value).replace(/[^a-zA-Z0-9-]/g, '');
  const nodeElements = () => document.querySelectorAll('svg.graph [data-node]');
  const nodeElement = (id) => {
    for (const e of nodeElements()) if (e.getAttribute('data-node') === id) return e;
    return null;
  };
  const typing = (target) =>
    target instanceof Element && target.closest('input, textarea, select, [contenteditable="true"]') !== null;
`;
