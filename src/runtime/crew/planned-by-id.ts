/**
 * A plan's tasks (`PlannedTask`s, in the crew's order) by node id, read through the crew's own map of node ids to positions: a crew of
 * 100,000 tasks keeps one such map, not one more per plan. Iterates in the crew's order, as a map
 * made from the plan's tasks would.
 */
export class PlannedById<PlannedTask> implements ReadonlyMap<string, PlannedTask> {
  constructor(
    private readonly positions: ReadonlyMap<string, number>,
    private readonly tasks: readonly PlannedTask[],
  ) {}

  get size(): number {
    return this.positions.size;
  }

  get(nodeId: string): PlannedTask | undefined {
    const position = this.positions.get(nodeId);
    return position === undefined ? undefined : this.tasks[position];
  }

  has(nodeId: string): boolean {
    return this.positions.has(nodeId);
  }

  forEach(callback: (value: PlannedTask, key: string, map: ReadonlyMap<string, PlannedTask>) => void): void {
    for (const [nodeId, task] of this) callback(task, nodeId, this);
  }

  *entries(): MapIterator<[string, PlannedTask]> {
    for (const [nodeId, position] of this.positions) yield [nodeId, this.tasks[position] as PlannedTask];
  }

  keys(): MapIterator<string> {
    return this.positions.keys();
  }

  *values(): MapIterator<PlannedTask> {
    for (const position of this.positions.values()) yield this.tasks[position] as PlannedTask;
  }

  [Symbol.iterator](): MapIterator<[string, PlannedTask]> {
    return this.entries();
  }
}
