/**
 * Persistent, hash-consed sets of step indexes: a set is a number, adding makes a new number and
 * leaves the old set as it was, and equal sets are always the same number. A set is a binary trie over
 * the bits of the index, of fixed depth, whose nodes are interned, so adding and looking up cost
 * O(log steps). The once-only steps that have run live here: a clone shares them by copying a number,
 * and a key names them by that number, however many there are.
 */
export class StepSets {
  /** Node 0 is the empty set at any depth; node 1 the leaf of a present index. */
  static readonly EMPTY = 0;
  static readonly #PRESENT = 1;
  /** A Map holds at most 2^24 entries; below that, a pair of ids is one exact number. */
  static readonly #ID_LIMIT = 2 ** 24;
  readonly #left: number[] = [0, 1];
  readonly #right: number[] = [0, 1];
  readonly #interned = new Map<number, number>();
  readonly #depth: number;

  constructor(size: number) {
    this.#depth = Math.max(1, Math.ceil(Math.log2(Math.max(size, 2))));
  }

  /** Whether `index` is in `set`. */
  has(set: number, index: number): boolean {
    let node = set;
    for (let bit = this.#depth - 1; bit >= 0 && node !== StepSets.EMPTY; bit -= 1) {
      node = ((index >>> bit) & 1 ? this.#right[node] : this.#left[node]) as number;
    }
    return node !== StepSets.EMPTY;
  }

  /** `set` with `index` added, as a new set (`set` itself is unchanged). */
  add(set: number, index: number): number {
    return this.#add(set, index, this.#depth - 1);
  }

  #add(node: number, index: number, bit: number): number {
    if (bit < 0) return StepSets.#PRESENT;
    const left = this.#left[node] as number;
    const right = this.#right[node] as number;
    return (index >>> bit) & 1
      ? this.#node(left, this.#add(right, index, bit - 1))
      : this.#node(this.#add(left, index, bit - 1), right);
  }

  /** The one node with these children. A node's depth follows from its non-empty child, so ids never clash across depths. */
  #node(left: number, right: number): number {
    const pair = left * StepSets.#ID_LIMIT + right;
    let id = this.#interned.get(pair);
    if (id === undefined) {
      id = this.#left.length;
      if (id >= StepSets.#ID_LIMIT) throw new RangeError('Too many step sets to key exactly');
      this.#left.push(left);
      this.#right.push(right);
      this.#interned.set(pair, id);
    }
    return id;
  }
}
