import { describe, expect, it } from 'vitest';
import { localExecutor } from '../../src/actors/hold-conversation.js';
import { Agent } from '../../src/index.js';
import { executorContract } from '../contracts/executor.contract.js';

executorContract('in-process (the default)', {
  open: async () => undefined,
  close: async () => {},
});

executorContract('localExecutor (a worker without the queue)', {
  open: async (registry) => localExecutor(registry, 'local-worker'),
  worker: 'local-worker',
  close: async () => {},
});

describe('a worker registry', () => {
  it('refuses two agents with one role, or two tools with one name (invalid_option)', () => {
    const llm = () => 'x';
    const tool = { name: 't', description: 'd', execute: () => 'r' };
    expect(() =>
      localExecutor({ agents: [new Agent({ role: 'A', llm }), new Agent({ role: 'A', llm })] }),
    ).toThrow(/option "agents" must be agents with distinct roles/);
    expect(() => localExecutor({ agents: [], tools: [tool, tool] })).toThrow(
      expect.objectContaining({ code: 'invalid_option' }),
    );
    // Agents that are neither a list nor a record: named, not a crash inside.
    expect(() => localExecutor({ agents: 'Researcher' as never })).toThrow(
      /option "agents" must be a list of agents, or a record by name/,
    );
  });
});
