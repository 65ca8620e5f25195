/**
 * The two cases of `bench/map.ts`, built fresh for every run: a one-task crew whose model answers at
 * once, a store of the run's own, and a flow whose step `each` runs the crew once per item — as a map
 * step (`map`), or by `crew.kickoffForEach` inside a plain step (`forEach`) that returns what a map
 * step would. And the check that a run did all of it.
 */
import { join } from 'node:path';
import type { Crew, CrewOutput, Store } from '../src/index.js';

/** The cases, in the order of the first round. */
export const CASES = ['map', 'forEach'] as const;
/** A case's name. */
export type CaseName = (typeof CASES)[number];
/** statecrew's public API and its scripted model, from the sources or from the built package. */
export type Api = typeof import('../src/index.js') &
  Pick<typeof import('../src/testing.js'), 'createScriptedModel'>;
/** An item: a type alias, so that it is a record of inputs. */
export type Item = { n: number };

/** statecrew from its sources (through the loader), or built (`dist/`, as users run it). */
export async function loadApi(built: boolean): Promise<Api> {
  if (!built) return { ...(await import('../src/index.js')), ...(await import('../src/testing.js')) };
  const testing = new URL('../dist/testing.js', import.meta.url).href;
  const { createScriptedModel } = (await import(testing)) as typeof import('../src/testing.js');
  return { ...(await import('./built.js')).statecrew, createScriptedModel };
}

/** A fresh store: a new SQLite file in `dir`, or a new `MemoryStore`. */
export function freshStore(api: Api, kind: 'sqlite' | 'memory', dir: string, run: number): Store {
  return kind === 'memory'
    ? new api.MemoryStore()
    : new api.SqliteStore({ path: join(dir, `run-${run}.db`) });
}

/**
 * A crew of one task whose model answers at once, and how many calls the model got. `scripted` is
 * `createScriptedModel` (which records every request); `plain` a function that only counts.
 */
export function oneTaskCrew(api: Api, model: 'scripted' | 'plain') {
  let answered = 0;
  const scripted = model === 'scripted' ? api.createScriptedModel(() => 'a summary') : undefined;
  const plain = () => {
    answered += 1;
    return 'a summary';
  };
  const agent = new api.Agent({ role: 'Summarizer', llm: scripted ?? plain });
  const task = new api.Task({ name: 'summarize', description: 'Summarize item {n}', agent });
  const crew = new api.Crew({ name: 'item', tasks: [task] });
  return { crew, calls: () => scripted?.calls.length ?? answered };
}

/** What a map step gives for an item, built from a `kickoffForEach` result. */
function itemResult(item: Item, index: number, settled: PromiseSettledResult<CrewOutput>) {
  const itemId = String(index);
  if (settled.status === 'rejected') {
    const { message, code } = settled.reason as { message: string; code?: string };
    return { item, itemId, status: 'failed' as const, error: { message, code } };
  }
  const status = settled.value.status === 'completed' ? ('completed' as const) : ('failed' as const);
  return { item, itemId, status, output: settled.value };
}

/** What a case runs over. */
export interface CaseSetup {
  store: Store;
  items: readonly Item[];
  crew: Crew;
  concurrency: number;
}

/** The flow of a case: a first step, then the items run by a map step or by `kickoffForEach`. */
export function flowOf(api: Api, name: CaseName, { store, items, crew, concurrency }: CaseSetup) {
  const flow = api.createFlow({ name: `bench-${name}`, initialState: {}, store });
  flow.start('items', () => items.length);
  if (name === 'map') return flow.map('each', 'items', { items: () => items, run: crew, concurrency });
  return flow.listen('each', 'items', async ({ signal }) => {
    const settled = await crew.kickoffForEach(items, { concurrency, store, signal });
    return settled.map((result, index) => itemResult(items[index] as Item, index, result));
  });
}

/** Throws unless the run completed every one of `n` items, calling the model once for each. */
export function checkRun(
  name: CaseName,
  out: { status: string; outputs: Record<string, unknown>; errors: Record<string, string> },
  n: number,
  calls: number,
): void {
  if (out.status !== 'completed') {
    throw new Error(`${name}: the flow run ${out.status} ${JSON.stringify(out.errors)}`);
  }
  const results = out.outputs.each as { status: string }[] | undefined;
  const completed = results?.filter((r) => r.status === 'completed').length ?? 0;
  if (results?.length !== n || completed !== n)
    throw new Error(`${name}: ${completed} of ${n} items completed`);
  if (calls !== n) throw new Error(`${name}: ${calls} model calls for ${n} items`);
}
