import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { RunNotFoundError, UnknownCommandTargetError } from '../../errors.js';
import { ExecutionDocument } from '../../runtime/crew/execution-document.js';
import { loadSnapshot } from '../../runtime/flow/flow-store.js';
import type { Store } from '../../stores/store.js';
import { type RunView, toCrewView, toFlowView, writeRunView } from '../../view/index.js';
import { loadTarget } from '../load-target.js';
import type { CliIo } from '../output.js';
import { readSource, runExists } from '../run-source.js';
import { storeFromOption } from '../store-option.js';

/** Options of `statecrew plot`. */
export interface PlotCommandOptions {
  output?: string | undefined;
  export?: string | undefined;
  store?: string | undefined;
}

/**
 * `statecrew plot <file | id>`: writes a self-contained HTML view — of a definition (a module or a
 * YAML crew directory: its graph, nothing run), or of a stored run (its graph with the path it took,
 * its timeline and every node's prompt, output, usage and error) — and prints its path.
 */
export async function plotCommand(target: string, options: PlotCommandOptions, io: CliIo): Promise<number> {
  let view: RunView;
  if (existsSync(target)) {
    const loaded = await loadTarget(target, options.export);
    view = loaded.kind === 'crew' ? toCrewView(loaded.crew) : toFlowView(loaded.flow);
  } else {
    const store = await storeFromOption(options.store);
    try {
      view = await storedView(store, target, options.export);
    } finally {
      await store.close();
    }
  }
  const file = options.output ?? join('.statecrew', 'views', `${safeName(view.id ?? view.name)}.html`);
  io.stdout.write(`${await writeRunView(view, file)}\n`);
  return 0;
}

/** The view of stored run `id`, with the definition the CLI noted when it started the run. */
async function storedView(store: Store, id: string, exportName: string | undefined): Promise<RunView> {
  const source = await readSource(store, id);
  if (source === undefined) {
    if (!(await runExists(store, id))) throw new RunNotFoundError('statecrew plot', id);
    throw new UnknownCommandTargetError(
      id,
      'was not started by statecrew run: plot its definition file instead',
    );
  }
  const loaded = await loadTarget(source.file, exportName ?? source.export);
  if (loaded.kind === 'crew') {
    const doc = await ExecutionDocument.fromStore(store, id);
    if (doc === undefined) throw new RunNotFoundError('statecrew plot', id);
    return toCrewView(loaded.crew, doc.toJSON());
  }
  const snapshot = await loadSnapshot(store, id);
  if (snapshot === undefined) throw new RunNotFoundError('statecrew plot', id);
  return toFlowView(loaded.flow, snapshot);
}

const safeName = (name: string) => name.replace(/[^A-Za-z0-9._-]+/g, '-');
