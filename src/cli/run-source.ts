import type { JsonValue, Store } from '../stores/store.js';
import type { TargetSource } from './load-target.js';

/** The key, beside a run's own records, under which the CLI notes where its definition came from. */
const SOURCE_KEY = 'source';

/** What the CLI notes beside a run it started: enough for `resume`, `show` and `plot` to load it again. */
export interface RunSource extends TargetSource {
  kind: 'crew' | 'flow';
  name: string;
}

const collectionOf = (kind: RunSource['kind']) => (kind === 'crew' ? 'crew_executions' : 'flow_runs');

/** Notes where run `id` came from (in the run's own collection, under its own key). */
export function writeSource(store: Store, id: string, source: RunSource): Promise<void> {
  return store.put(collectionOf(source.kind), id, SOURCE_KEY, source as unknown as JsonValue);
}

/** Where run `id` came from, if the CLI started it; a crew's first, then a flow's. */
export async function readSource(store: Store, id: string): Promise<RunSource | undefined> {
  for (const kind of ['crew', 'flow'] as const) {
    const record = await store.get(collectionOf(kind), id, SOURCE_KEY);
    if (record !== undefined) return record.value as unknown as RunSource;
  }
  return undefined;
}

/** Whether the store holds anything of run `id`: a crew's results or document, or a flow's header. */
export async function runExists(store: Store, id: string): Promise<boolean> {
  const [results, crew, flow] = await Promise.all([
    store.list('crew_task_results', id),
    store.get('crew_executions', id, 'run'),
    store.get('flow_runs', id, 'run'),
  ]);
  return results.length > 0 || crew !== undefined || flow !== undefined;
}
