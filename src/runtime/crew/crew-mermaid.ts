import type { ProcessNodeKind, ProcessShape } from '../process-shape.js';
import type { CrewPlan } from './plan.js';

const quote = (text: string) => `"${text.replace(/"/g, '#quot;')}"`;

/** How Mermaid draws each kind of a process's own nodes, after the node's id. */
const FORMS: Record<ProcessNodeKind, (label: string) => string> = {
  manager: (label) => `{{${quote(label)}}}`,
  synthesis: (label) => `[${quote(label)}]`,
  judge: (label) => `{${quote(label)}}`,
  start: (label) => `(((${label})))`,
  end: (label) => `(((${label})))`,
};

/**
 * A Mermaid flowchart of a process's shape: a node `t<i>` per task, then the shape's edges in order.
 * A process's own node (its Mermaid id is its label) gets a line of its own before the first edge
 * that uses it — an end marker is drawn inside that edge — and one at the end when no edge uses it.
 */
export function crewMermaid(plan: CrewPlan, shape: ProcessShape): string {
  const taskIds = new Map(plan.tasks.map((t, i) => [t.nodeId, `t${i}`]));
  const own = new Map(shape.nodes.map((node) => [node.id, node]));
  const drawn = new Set<string>();
  const lines = plan.tasks.map((t, i) => `  t${i}[${quote(t.nodeId)}]`);
  const ref = (id: string): string => {
    const node = own.get(id);
    if (node === undefined) return taskIds.get(id) ?? id;
    if (drawn.has(id)) return node.label;
    drawn.add(id);
    const drawing = `${node.label}${FORMS[node.kind](node.label)}`;
    if (node.kind === 'end') return drawing;
    lines.push(`  ${drawing}`);
    return node.label;
  };
  for (const edge of shape.edges) {
    const from = ref(edge.from);
    const to = ref(edge.to);
    lines.push(`  ${from} ${edge.label === undefined ? '-->' : `-- ${edge.label} -->`} ${to}`);
  }
  for (const node of shape.nodes) {
    if (!drawn.has(node.id)) lines.push(`  ${node.label}${FORMS[node.kind](node.label)}`);
  }
  return ['flowchart TD', ...lines].join('\n');
}
