import { InternalError } from '../errors.js';
import type { Tool, ToolSource, ToolSourceSession } from '../types.js';

/** Whether a granted value is a {@link ToolSource} rather than a {@link Tool}. */
export function isToolSource(value: unknown): value is ToolSource {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'tool-source';
}

/**
 * The sessions of one run's tool sources: each source (by its `key`) is opened at most once, when a
 * conversation first needs it, and every session is closed by {@link ToolSessions.close} when the run
 * settles. A source that failed to open is tried again by the next conversation that needs it.
 */
export class ToolSessions {
  readonly #open = new Map<object, Promise<ToolSourceSession>>();
  #closed = false;

  /** The tools `sources` grant, in order, opening the sources not open yet. */
  async toolsOf(sources: readonly ToolSource[], signal: AbortSignal): Promise<Tool[]> {
    const tools: Tool[] = [];
    for (const source of sources) tools.push(...source.grant(await this.#session(source, signal)));
    return tools;
  }

  /** Closes every session opened (and any still opening); later opens are refused. Never rejects. */
  async close(): Promise<void> {
    this.#closed = true;
    const opening = [...this.#open.values()];
    this.#open.clear();
    await Promise.allSettled(opening.map((session) => session.then((s) => s.close())));
  }

  #session(source: ToolSource, signal: AbortSignal): Promise<ToolSourceSession> {
    if (this.#closed) {
      return Promise.reject(
        new InternalError('ToolSessions', `Tool source "${source.name}" was asked for after its run settled`),
      );
    }
    let session = this.#open.get(source.key);
    if (session === undefined) {
      session = source.open(signal);
      this.#open.set(source.key, session);
      // A failed open is forgotten: the next conversation that needs the source tries again.
      session.catch(() => {
        if (this.#open.get(source.key) === session) this.#open.delete(source.key);
      });
    }
    return session;
  }
}
