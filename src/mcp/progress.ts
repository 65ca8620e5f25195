import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ProgressNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { ToolProgress } from '../types.js';

/**
 * Routes a connection's progress notifications to the calls that asked for them, by progress token.
 * The SDK's own `onprogress` loses a notification that arrives together with its call's response
 * (the response is handled at once, the notification a microtask later, after its handler was
 * dropped): these routes stay until the call's caller has its result, so every notification the
 * server sent before its result is delivered.
 */
export class ProgressRoutes {
  readonly #routes = new Map<string, (progress: ToolProgress) => void>();
  #next = 0;

  /** Hands `client`'s progress notifications to the routes (a notification for no route is dropped). */
  listen(client: Client): void {
    client.setNotificationHandler(ProgressNotificationSchema, ({ params }) => {
      const route = this.#routes.get(String(params.progressToken));
      if (route === undefined) return;
      const report: ToolProgress = { progress: params.progress };
      if (params.total !== undefined) report.total = params.total;
      if (params.message !== undefined) report.message = params.message;
      route(report);
    });
  }

  /** A new progress token whose notifications go to `onProgress`. */
  add(onProgress: (progress: ToolProgress) => void): string {
    this.#next += 1;
    const token = `statecrew-${this.#next}`;
    this.#routes.set(token, onProgress);
    return token;
  }

  delete(token: string): void {
    this.#routes.delete(token);
  }
}
