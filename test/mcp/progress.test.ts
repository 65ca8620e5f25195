import { describe, expect, it } from 'vitest';
import { liveProgress } from '../../src/cli/progress.js';
import { Agent, Crew, type StatecrewEvent, Task } from '../../src/index.js';
import { mcpServer } from '../../src/mcp/index.js';
import { createScriptedModel } from '../../src/testing.js';
import { callTool, everythingServer } from './servers.js';

type ProgressEvent = Extract<StatecrewEvent, { type: 'tool.progress' }>;

describe('progress of an MCP tool call', () => {
  it("turns the server's progress notifications into tool.progress events, in order, before the call's tool.call", async () => {
    const everything = mcpServer(everythingServer(), { include: ['trigger-long-running-operation'] });
    const llm = createScriptedModel([
      callTool('everything_trigger-long-running-operation', { duration: 0.6, steps: 3 }, 'slow'),
      'done',
    ]);
    const agent = new Agent({ role: 'Operator', llm, tools: [everything] });
    const task = new Task({ name: 'operate', description: 'Run the long operation', agent });
    const run = new Crew({ agents: [agent], tasks: [task] }).run();
    const events: StatecrewEvent[] = [];
    run.events$.subscribe((event) => events.push(event));
    const result = await run.result;

    expect(result.status).toBe('completed');
    expect(result.nodes[0]?.toolCalls[0]?.result).toBe(
      'Long running operation completed. Duration: 0.6 seconds, Steps: 3.',
    );
    const progress = events.filter((e): e is ProgressEvent => e.type === 'tool.progress');
    expect(progress.map(({ progress: step, total }) => ({ step, total }))).toEqual([
      { step: 1, total: 3 },
      { step: 2, total: 3 },
      { step: 3, total: 3 },
    ]);
    for (const event of progress) {
      expect(event).toMatchObject({
        nodeId: 'operate',
        tool: 'everything_trigger-long-running-operation',
        callId: expect.stringMatching(/^operate\.1\.\d+\.0$/),
        runId: run.id,
      });
    }
    // Every report came while the call ran: before the call's own event.
    const callAt = events.findIndex((e) => e.type === 'tool.call');
    expect(events.findLastIndex((e) => e.type === 'tool.progress')).toBeLessThan(callAt);
  }, 60_000);
});

describe('tool progress in the CLI', () => {
  it("notes the tool's progress on the node's row of the live list", () => {
    let written = '';
    const progress = liveProgress(
      { write: (text: string) => (written += text) },
      ['read'],
      'run-1',
      () => 5_000,
    );
    const base = { runId: 'run-1', at: 1_000, nodeId: 'read' };
    progress.event({ ...base, type: 'node.started', name: 'read', attempt: 1, agent: 'Reader' });
    const tool = 'fs_read_text_file';
    progress.event({ ...base, type: 'tool.progress', tool, callId: 'read.1.1.0', progress: 2, total: 5 });
    progress.end();
    expect(written.slice(written.lastIndexOf('\u001b[G') + 3)).toMatch(
      /▶ read +running .* fs_read_text_file 2\/5/,
    );
  });
});
