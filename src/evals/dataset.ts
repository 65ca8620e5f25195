import type { Dataset, EvalCase } from './types.js';

/**
 * The cases of a dataset: an array as it is (each checked), or a `.jsonl` (a case per line), `.json`
 * (an array), `.yaml` or `.yml` (a list) file. Throws `invalid_dataset` naming the file and line, or
 * the index, and what is wrong.
 */
export async function loadDataset(dataset: Dataset): Promise<EvalCase[]> {
  throw new Error(`loadDataset is not built yet (${typeof dataset})`);
}
