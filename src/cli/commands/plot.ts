import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { RunNotFoundError } from '../../errors.js';
import { ExecutionDocument } from '../../runtime/crew/execution-document.js';
import { loadSnapshot } from '../../runtime/flow/flow-store.js';
import type { Store } from '../../stores/store.js';
import { type RunView, toCrewView, toFlowView, writeRunView } from '../../view/index.js';
import { storedRunView } from '../../view/stored-view.js';
import { loadTarget } from '../load-target.js';
import type { CliIo } from '../output.js';
import { readSource } from '../run-source.js';
import { storeFromOption } from '../store-option.js';

/** Options of `statecrew plot`. */
export interface PlotCommandOptions {
  output?: string | undefined;
  export?: string | undefined;
  /** Which crew of a YAML folder whose `crew.ts` exports several (`crews`). */
  crew?: string | undefined;
  store?: string | undefined;
}

/**
 * `statecrew plot <file | id>`: writes a self-contained HTML view — of a definition (a module or a
 * YAML crew directory: its graph, nothing run), or of a stored run (its graph with the path it took,
 * its timeline and every node's prompt, output, usage and error; with the definition the CLI noted
 * when it started the run, else drawn from the stored run alone) — and prints its path. A file that
 * does not exist is said to be missing (`unknown_command_target`), not looked up as a run id.
 */
export async function plotCommand(target: string, options: PlotCommandOptions, io: CliIo): Promise<number> {
  let view: RunView;
  if (existsSync(target) || looksLikeFile(target)) {
    const loaded = await loadTarget(target, options.export, options.crew);
    view = loaded.kind === 'crew' ? toCrewView(loaded.crew) : toFlowView(loaded.flow);
  } else {
    const store = await storeFromOption(options.store);
    try {
      view = await storedView(store, target, options.export, options.crew);
    } finally {
      await store.close();
    }
  }
  const file = options.output ?? join('.statecrew', 'views', `${safeName(view.id ?? view.name)}.html`);
  io.stdout.write(`${await writeRunView(view, file)}\n`);
  return 0;
}

/** A target that names a file, not a run id: a path, or a module's or YAML file's name. */
function looksLikeFile(target: string): boolean {
  return /[/\\]/.test(target) || /\.(?:[mc]?[jt]s|ya?ml)$/.test(target);
}

/**
 * The view of stored run `id`: with the definition the CLI noted when it started the run, else from
 * the stored run alone (a run a server or code started), drawn as the studio draws a run whose
 * definition its server does not serve.
 */
async function storedView(
  store: Store,
  id: string,
  exportName: string | undefined,
  crewName: string | undefined,
): Promise<RunView> {
  const source = await readSource(store, id);
  if (source === undefined) {
    const head = await store.readRun(id);
    if (head === undefined) throw new RunNotFoundError('statecrew plot', id);
    return storedRunView(store, head);
  }
  const loaded = await loadTarget(source.file, exportName ?? source.export, crewName ?? source.crew);
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
