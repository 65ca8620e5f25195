import { isDeepStrictEqual } from 'node:util';
import { InvalidOptionError } from '../../errors.js';
import type { Checkpoint, NodeDiff, RunDiff, RunHistory } from '../../types.js';

/** The fields of two checkpoints of one node that differ. */
function differing(a: Checkpoint, b: Checkpoint): NodeDiff['fields'] {
  const fields: NodeDiff['fields'] = [];
  if (a.status !== b.status) fields.push('status');
  if (!isDeepStrictEqual(a.output, b.output) || !isDeepStrictEqual(a.structured, b.structured)) {
    fields.push('output');
  }
  if (!isDeepStrictEqual(a.state, b.state)) fields.push('state');
  return fields;
}

function checkHistory(which: string, history: RunHistory): void {
  if (history === null || typeof history !== 'object' || !Array.isArray(history.checkpoints)) {
    throw new InvalidOptionError(
      'diffRuns',
      which,
      'a run history (`history(id)`, `readHistory(store, id)`)',
      history,
    );
  }
  if (history.next !== undefined) {
    throw new InvalidOptionError(
      'diffRuns',
      which,
      'a whole history (it is one page of it: read it without `limit`)',
      history.id,
    );
  }
}

/**
 * How two runs differ, node by node: the path each took (its checkpoints in commit order), and each
 * node whose status, output or state differs, or that only one of them has. The common case: a fork
 * beside its source (`diffRuns(await flow.history(source), await flow.history(fork))`).
 *
 * @example
 * const diff = diffRuns(await crew.history('run-1'), await crew.history('run-1-fork'));
 * for (const node of diff.nodes) console.log(node.nodeId, node.change, node.fields);
 */
export function diffRuns(a: RunHistory, b: RunHistory): RunDiff {
  checkHistory('a', a);
  checkHistory('b', b);
  const pathA = a.checkpoints.map((c) => c.nodeId);
  const pathB = b.checkpoints.map((c) => c.nodeId);
  const inB = new Map(b.checkpoints.map((c) => [c.nodeId, c]));
  const inA = new Set(pathA);
  const nodes: NodeDiff[] = [];
  for (const left of a.checkpoints) {
    const right = inB.get(left.nodeId);
    if (right === undefined) {
      nodes.push({ nodeId: left.nodeId, change: 'removed', fields: [], a: left });
      continue;
    }
    const fields = differing(left, right);
    if (fields.length > 0) nodes.push({ nodeId: left.nodeId, change: 'changed', fields, a: left, b: right });
  }
  for (const right of b.checkpoints) {
    if (!inA.has(right.nodeId)) nodes.push({ nodeId: right.nodeId, change: 'added', fields: [], b: right });
  }
  let divergesAt: number | undefined;
  const longest = Math.max(pathA.length, pathB.length);
  for (let index = 0; index < longest && divergesAt === undefined; index += 1) {
    if (pathA[index] !== pathB[index]) divergesAt = index;
  }
  const path: RunDiff['path'] = { a: pathA, b: pathB, same: divergesAt === undefined };
  if (divergesAt !== undefined) path.divergesAt = divergesAt;
  return { a: a.id, b: b.id, same: path.same && nodes.length === 0, path, nodes };
}
