import {
  decodeValue,
  encodeValue,
  type JsonValue,
  OpenState,
  STORE_FORMAT_VERSION,
  type Store,
  type StoreCollection,
  type StoredRecord,
} from './store.js';

/** A row as the memory store keeps it: JSON text, as every other store does, so values never alias. */
interface MemoryRow {
  version: unknown;
  text: unknown;
  updatedAt: number;
}

/**
 * A store in this process's memory: for tests and for runs that need resume only within one process.
 * Values are kept as JSON text, like every other store: what you read back is a copy, and what JSON
 * cannot carry is refused at write time.
 *
 * @example
 * const store = new MemoryStore();
 */
export class MemoryStore implements Store {
  readonly kind = 'memory';
  /** collection → execution id → key → row; Maps keep first-write order. */
  readonly #rows = new Map<string, Map<string, Map<string, MemoryRow>>>();
  readonly #open = new OpenState('MemoryStore');

  constructor(private readonly now: () => number = Date.now) {}

  async put(collection: StoreCollection, executionId: string, key: string, value: JsonValue): Promise<void> {
    this.#write(collection, executionId, key, value, true);
  }

  async insert(
    collection: StoreCollection,
    executionId: string,
    key: string,
    value: JsonValue,
  ): Promise<boolean> {
    return this.#write(collection, executionId, key, value, false);
  }

  async get(
    collection: StoreCollection,
    executionId: string,
    key: string,
  ): Promise<StoredRecord | undefined> {
    this.#open.use(collection, executionId, key);
    const row = this.#rows.get(collection)?.get(executionId)?.get(key);
    return row === undefined ? undefined : this.#record(collection, executionId, key, row);
  }

  async list(collection: StoreCollection, executionId: string): Promise<StoredRecord[]> {
    this.#open.use(collection, executionId);
    const rows = this.#rows.get(collection)?.get(executionId);
    if (rows === undefined) return [];
    return [...rows].map(([key, row]) => this.#record(collection, executionId, key, row));
  }

  async executions(collection: StoreCollection): Promise<string[]> {
    this.#open.use(collection);
    return [...(this.#rows.get(collection)?.keys() ?? [])].sort();
  }

  async close(): Promise<void> {
    this.#open.close();
    this.#rows.clear();
  }

  /**
   * Writes a row as another writer could have left it (a format version, raw text): how tests give
   * the memory store the corrupt or foreign rows that the other stores can meet on disk.
   */
  writeRaw(
    collection: StoreCollection,
    executionId: string,
    key: string,
    version: unknown,
    text: unknown,
  ): void {
    this.#execution(collection, executionId).set(key, { version, text, updatedAt: this.now() });
  }

  #write(
    collection: StoreCollection,
    executionId: string,
    key: string,
    value: JsonValue,
    replace: boolean,
  ): boolean {
    this.#open.use(collection, executionId, key);
    const text = encodeValue('MemoryStore', value);
    const rows = this.#execution(collection, executionId);
    if (!replace && rows.has(key)) return false;
    rows.set(key, { version: STORE_FORMAT_VERSION, text, updatedAt: this.now() });
    return true;
  }

  #execution(collection: string, executionId: string): Map<string, MemoryRow> {
    let executions = this.#rows.get(collection);
    if (executions === undefined) {
      executions = new Map();
      this.#rows.set(collection, executions);
    }
    let rows = executions.get(executionId);
    if (rows === undefined) {
      rows = new Map();
      executions.set(executionId, rows);
    }
    return rows;
  }

  #record(collection: string, executionId: string, key: string, row: MemoryRow): StoredRecord {
    const value = decodeValue({ collection, executionId, key }, row.version, row.text);
    return { key, value, updatedAt: row.updatedAt };
  }
}
