import { MemoryStore } from '../../src/stores/memory.js';
import { storeContract } from '../contracts/store.contract.js';

let current: MemoryStore | undefined;

storeContract('MemoryStore', {
  durable: false,
  async open() {
    current = new MemoryStore();
    return current;
  },
  // One process, one memory: the "other writer" is the same object.
  async reopen() {
    if (current === undefined) throw new Error('open() first');
    return current;
  },
  async writeRaw(store, collection, executionId, key, version, text) {
    (store as MemoryStore).writeRaw(collection, executionId, key, version, text);
  },
  async cleanup() {
    current = undefined;
  },
});
