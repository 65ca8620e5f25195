/** A name as people misspell it: case, `_` and `-` do not count (`expected_output` is `expectedOutput`). */
const loose = (name: string) => name.toLowerCase().replaceAll(/[_-]/g, '');

/**
 * The name of `names` closest to `wanted` by edit distance (ignoring case, `_` and `-`), if it is
 * close enough to be what was meant: at most a third of its length away, and never more than 3.
 */
export function closestName(wanted: string, names: readonly string[]): string | undefined {
  const target = loose(wanted);
  let best: { name: string; distance: number } | undefined;
  for (const name of names) {
    const distance = editDistance(target, loose(name));
    if (best === undefined || distance < best.distance) best = { name, distance };
  }
  const allowed = Math.min(3, Math.max(1, Math.floor(target.length / 3)));
  return best !== undefined && best.distance <= allowed ? best.name : undefined;
}

/** The Levenshtein distance of `a` and `b`: the fewest insertions, deletions and substitutions. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      const substitution = (previous[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current[j] = Math.min((previous[j] as number) + 1, (current[j - 1] as number) + 1, substitution);
    }
    previous = current;
  }
  return previous[b.length] as number;
}
