/**
 * The graph's search box: `runSearch()` finds the nodes whose label, agent or id holds the query
 * (any case) and marks them; `stepSearch(1)` (Enter) and `stepSearch(-1)` (Shift+Enter) go to the
 * next or previous match and bring it into sight; the count says how many and which one is shown.
 */
export const SEARCH_SCRIPT = `
  const search = { query: '', matches: [], at: -1 };
  const matchesOf = (query) => {
    if (!query) return [];
    const holds = (value) => typeof value === 'string' && value.toLowerCase().includes(query);
    return (state.data.nodes || []).filter((n) => holds(n.label) || holds(n.agent) || holds(n.id)).map((n) => n.id);
  };
  const searchCount = () => {
    const count = search.matches.length;
    if (!search.query) return '';
    if (count === 0) return 'No match';
    if (search.at < 0) return count + (count === 1 ? ' match' : ' matches');
    return search.at + 1 + ' of ' + count;
  };
  const paintSearch = () => {
    const found = new Set(search.matches);
    const current = search.matches[search.at];
    const svg = document.querySelector('svg.graph');
    if (svg) svg.classList.toggle('searching', search.query !== '');
    for (const e of nodeElements()) {
      const id = e.getAttribute('data-node');
      e.classList.toggle('match', found.has(id));
      e.classList.toggle('current-match', id === current);
    }
    const count = byId('search-count');
    if (count) count.textContent = searchCount();
  };
  const runSearch = () => {
    const input = byId('graph-search');
    const shown = search.matches[search.at];
    search.query = input ? input.value.trim().toLowerCase() : '';
    search.matches = matchesOf(search.query);
    // The same query over new data keeps its place.
    search.at = search.matches.indexOf(shown);
    paintSearch();
  };
  const stepSearch = (by) => {
    const count = search.matches.length;
    if (count === 0) return;
    search.at = search.at < 0 ? (by > 0 ? 0 : count - 1) : (search.at + by + count) % count;
    paintSearch();
    showNode(search.matches[search.at], true);
  };
`;
