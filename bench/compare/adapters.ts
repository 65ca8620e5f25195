import type { Adapter } from './workloads.js';

/** Every runtime, loaded only when measured, so one runtime's modules never weigh on another's memory. */
export const loaders: Record<string, () => Promise<Adapter>> = {
  floor: async () => (await import('./floor.js')).floor,
  'xstate-actor': async () => (await import('./actor-floor.js')).actorFloor,
  statecrew: async () => (await import('./statecrew.js')).statecrew,
  langgraph: async () => (await import('./langgraph.js')).langgraph,
  mastra: async () => (await import('./mastra.js')).mastra,
};
