import { describe, expect, it } from 'vitest';
import { resumeHint } from '../../src/cli/commands/flow-output.js';
import { MemoryStore } from '../../src/index.js';
import { pausedText, waitedEvents } from '../../src/mcp/serve-paused.js';
import { parentFlow, paymentFlow, reviewFlow } from '../fixtures/compose/subflow-flows.js';

describe('what a parent paused on its child flow tells people', () => {
  it("lists the child's human step by its path, with the command that answers it through the parent", async () => {
    const ran: string[] = [];
    const out = await parentFlow(reviewFlow(ran), ran, new MemoryStore()).kickoff({ inputs: { id: 'x-1' } });
    const hint = resumeHint(out.id, out.pending === undefined ? [] : [out.pending], ['--store', 'runs.db']);
    expect(hint).toEqual([
      '  review: flow "review" (run x-1/review) waits at review › approve',
      '  review › approve asks: Publish it?',
      "  answer with: statecrew resume x-1 --store runs.db --step 'review › approve' --route <ok | redo> [--feedback <text>]",
    ]);
    const text = pausedText(out, 'publish');
    expect(text).toContain('Step "review › approve" asks: Publish it?');
    expect(text).toContain("statecrew resume x-1 --step 'review › approve' --route <ok | redo>");
  });

  it("lists the child's wait for an event with the signal that reaches it through the parent", async () => {
    const ran: string[] = [];
    const out = await parentFlow(paymentFlow(ran), ran, new MemoryStore()).kickoff({ inputs: { id: 'x-2' } });
    const pending = out.pending === undefined ? [] : [out.pending];
    expect(resumeHint(out.id, pending)).toContain(
      '  signal it with: statecrew signal x-2 paid [--payload <json>]',
    );
    expect(waitedEvents(pending)).toEqual(['paid']);
    expect(pausedText(out, 'publish')).toContain('statecrew signal x-2 paid');
  });
});
