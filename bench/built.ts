/**
 * statecrew as its users run it: the built package (`npm run build`, which `npm run bench` runs
 * first), not the TypeScript sources through a loader that wraps every named inner function.
 */
import { existsSync } from 'node:fs';

const entry = new URL('../dist/index.js', import.meta.url);
if (!existsSync(entry)) throw new Error('bench: dist/ is missing; run `npm run build` first');

/** The public API of the built package. */
export const statecrew = (await import(entry.href)) as typeof import('../src/index.js');

/** The built lifecycle machine, entered at `running`: the actor floor's machine (not a root export). */
export const { startedLifecycleMachine } = (await import(
  new URL('../dist/machines/lifecycle.js', import.meta.url).href
)) as typeof import('../src/machines/lifecycle.js');

/** The run view of the built package (`statecrew/view`). */
export const view = (await import(
  new URL('../dist/view/index.js', import.meta.url).href
)) as typeof import('../src/view/index.js');
