/** An edge as ranking reads it. */
interface RankedEdge {
  from: string;
  to: string;
  back?: boolean;
}

/** The forward edges: no loop's back edge, no self edge, no edge closing a cycle (found depth first). */
function forwardEdges(ids: readonly string[], edges: readonly RankedEdge[]): Map<string, string[]> {
  const out = new Map<string, string[]>(ids.map((id) => [id, []]));
  for (const edge of edges) {
    if (edge.back === true || edge.from === edge.to || !out.has(edge.to)) continue;
    out.get(edge.from)?.push(edge.to);
  }
  const state = new Map<string, 'open' | 'done'>();
  const forward = new Map<string, string[]>();
  for (const root of ids) {
    if (state.has(root)) continue;
    // An explicit stack: a 10,000-step chain must not overflow the call stack.
    const stack: { id: string; next: number }[] = [{ id: root, next: 0 }];
    state.set(root, 'open');
    forward.set(root, []);
    while (stack.length > 0) {
      const top = stack.at(-1) as { id: string; next: number };
      const to = (out.get(top.id) ?? [])[top.next];
      top.next += 1;
      if (to === undefined) {
        state.set(top.id, 'done');
        stack.pop();
      } else if (state.get(to) !== 'open') {
        forward.get(top.id)?.push(to);
        if (!state.has(to)) {
          state.set(to, 'open');
          forward.set(to, []);
          stack.push({ id: to, next: 0 });
        }
      }
    }
  }
  return forward;
}

/**
 * Each node's rank (its row of the picture): the length of the longest chain of edges leading to
 * it, back edges and edges closing a cycle left out. Nodes of one rank never share an edge.
 */
export function rankNodes(ids: readonly string[], edges: readonly RankedEdge[]): Map<string, number> {
  const forward = forwardEdges(ids, edges);
  const incoming = new Map<string, number>(ids.map((id) => [id, 0]));
  for (const targets of forward.values()) {
    for (const to of targets) incoming.set(to, (incoming.get(to) ?? 0) + 1);
  }
  const rank = new Map<string, number>(ids.map((id) => [id, 0]));
  const ready = ids.filter((id) => incoming.get(id) === 0);
  for (let i = 0; i < ready.length; i += 1) {
    const id = ready[i] as string;
    for (const to of forward.get(id) ?? []) {
      rank.set(to, Math.max(rank.get(to) ?? 0, (rank.get(id) ?? 0) + 1));
      const left = (incoming.get(to) ?? 0) - 1;
      incoming.set(to, left);
      if (left === 0) ready.push(to);
    }
  }
  return rank;
}
