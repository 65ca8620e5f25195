import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Agent, type Llm } from '../src/index.js';
import { createScriptedModel, type ScriptedModel } from '../src/testing.js';

/** A file of the package the tests build once (`test/global-setup.ts`), by its path under `dist/`. */
export const built = (path: string) => fileURLToPath(new URL(`../dist/${path}`, import.meta.url));

/**
 * The heavy back-ends (store drivers, queue, AI SDK, MCP SDK, Hono) that importing `module`, a file
 * of the built package (default: its root), loads in a fresh process.
 */
export function loadedBy(module = built('index.js')): string[] {
  const script = fileURLToPath(new URL('fixtures/loaded-backends.mjs', import.meta.url));
  const printed = execFileSync(process.execPath, [script, module], { encoding: 'utf8' });
  return (JSON.parse(printed.trim().split('\n').at(-1) as string) as { loaded: string[] }).loaded;
}

/** A clock that ticks 1 ms per reading, from a fixed epoch: runs become byte-for-byte reproducible. */
export function tickingClock(start = 1_700_000_000_000): () => number {
  let now = start;
  return () => {
    now += 1;
    return now;
  };
}

/** The task line of a rendered prompt (`Task: …`). */
export function taskLine(prompt: string): string {
  return prompt.split('\n').find((line) => line.startsWith('Task: ')) ?? '';
}

/** A scripted model that answers `<role>: <task line>`, so outputs say who did what. */
export function echoModel(): ScriptedModel {
  return createScriptedModel(
    (request) => `${request.agent}: ${taskLine(request.prompt).slice('Task: '.length)}`,
  );
}

/** An agent with the given role and model. */
export function agent(role: string, llm: Llm): Agent {
  return new Agent({ role, llm });
}

/**
 * A model whose replies the test releases by hand: each call waits until `release(task)` is called
 * with the text of its `Task:` line. `started` lists the task lines in call order, and `whenCalled`
 * resolves once a given task's call arrived — tests await state, never time.
 */
export function gatedModel() {
  const waiting = new Map<string, (text: string) => void>();
  const arrivals = new Map<string, () => void>();
  const started: string[] = [];
  const model = createScriptedModel((request) => {
    const task = taskLine(request.prompt).slice('Task: '.length);
    started.push(task);
    arrivals.get(task)?.();
    return () => new Promise<string>((resolve) => waiting.set(task, resolve));
  });
  return {
    model,
    started,
    whenCalled(task: string): Promise<void> {
      if (started.includes(task)) return Promise.resolve();
      return new Promise((resolve) => arrivals.set(task, resolve));
    },
    release(task: string, text = `done ${task}`): void {
      const resolve = waiting.get(task);
      if (resolve === undefined) throw new Error(`No call of "${task}" is waiting`);
      waiting.delete(task);
      resolve(text);
    },
  };
}

/**
 * Counts the macrotask turns the host gets from now on (a `setImmediate` chain): `now()` is how many
 * so far, and `stop()` ends the count and returns it. A frozen loop gets none.
 */
export function turnCounter(): { now(): number; stop(): number } {
  let turns = 0;
  let running = true;
  const tick = () => {
    if (!running) return;
    turns += 1;
    setImmediate(tick);
  };
  setImmediate(tick);
  return {
    now: () => turns,
    stop: () => {
      running = false;
      return turns;
    },
  };
}
