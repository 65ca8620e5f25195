/** A point of a routed edge. */
interface At {
  x: number;
  y: number;
}

/** Which side of the line a→b the point c is on: positive, negative, or 0 on it. */
const side = (a: At, b: At, c: At) => (b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x);

/** Whether segments p1p2 and q1q2 cross at a point inside both (touching ends do not count). */
function cross(p1: At, p2: At, q1: At, q2: At): boolean {
  const d1 = side(q1, q2, p1);
  const d2 = side(q1, q2, p2);
  const d3 = side(p1, p2, q1);
  const d4 = side(p1, p2, q2);
  return d1 * d2 < 0 && d3 * d4 < 0;
}

const segments = (points: readonly At[]) => points.slice(1).map((p, i) => [points[i] as At, p] as const);

/**
 * How many times the routed edges cross one another (edges that share a node are not compared:
 * they meet at it): the measure by which one layout of a picture reads better than another.
 */
export function crossings(
  edges: readonly { edge: { from: string; to: string }; points: readonly At[] }[],
): number {
  let count = 0;
  const routed = edges.map((e) => ({ ...e.edge, segments: segments(e.points) }));
  routed.forEach((a, i) => {
    for (const b of routed.slice(i + 1)) {
      if (a.from === b.from || a.from === b.to || a.to === b.from || a.to === b.to) continue;
      for (const [p1, p2] of a.segments)
        for (const [q1, q2] of b.segments) if (cross(p1, p2, q1, q2)) count += 1;
    }
  });
  return count;
}
