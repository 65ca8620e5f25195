/**
 * Records `cassettes/real-model.json` from a local OpenAI-compatible stand-in server, not from
 * OpenAI: the example's own crew and model picker, with the real `@ai-sdk/openai` provider, talk over
 * HTTP to the test fixture `test/fixtures/openai-server.ts`, which answers from the script below
 * (a tool call turn, then written answers, with token counts estimated from the text). The cassette
 * says so in its `note`. With a real key, `STATECREW_RECORD=1 npx tsx examples/real-model.ts` records
 * from the real provider instead.
 *
 * Run: npx tsx examples/record-cassette.ts
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import type { CrewOutput } from '../src/index.js';
import { startOpenAiServer, type WireReply, type WireRequest } from '../test/fixtures/openai-server.js';
import { isMain } from './main.js';
import { CASSETTE, INPUTS, pickModel, researchCrew } from './real-model.js';

/** What the cassette's `note` says about where its answers come from. */
export const STAND_IN_NOTE =
  'recorded from a local OpenAI-compatible stand-in server (examples/record-cassette.ts), not from ' +
  'OpenAI: its answers and token counts are scripted';

/** The stand-in's answers, by task. */
export const ANSWERS = {
  /** The researcher's first turn: the terms it looks up, all at once. */
  lookups: ['actor model', 'statecharts', 'xstate'],
  research: [
    '- The actor model (Hewitt, Bishop and Steiger, 1973): an actor handles one message at a time and ' +
      'responds by sending messages, creating actors or changing how it handles the next one. (actor model)',
    '- Statecharts (David Harel, 1987) extend state machines with nested states and parallel regions, ' +
      'so a lifecycle can be drawn and checked. (statecharts)',
    '- In XState v5 the actor is the basic unit: every running machine is an actor that receives events ' +
      'and can invoke or spawn other actors. (xstate)',
  ].join('\n'),
  draft:
    'An AI crew is a set of agents passing work to one another, and the actor model, proposed by ' +
    'Hewitt, Bishop and Steiger in 1973, fits it well: each actor handles one message at a time and ' +
    'answers by sending messages or creating new actors. Statecharts, introduced by David Harel in 1987, ' +
    "add nested and parallel states, so each task's lifecycle can be drawn and checked. XState v5 brings " +
    'both to TypeScript: every running machine is an actor that receives events and can invoke other actors.',
  edited: {
    title: 'Why AI crews run well as actors',
    paragraph:
      'An AI crew is agents handing work to one another, and the actor model (Hewitt, Bishop and ' +
      'Steiger, 1973) fits it: each actor handles one message at a time and responds by sending ' +
      "messages or creating actors. Harel's statecharts (1987) add nested and parallel states, so every " +
      "task's lifecycle can be drawn and checked. XState v5 joins the two in TypeScript: each running " +
      'machine is an actor that receives events and invokes others.',
  },
  summary:
    'AI crews map onto actors: each agent handles one message at a time and hands work on by message. ' +
    "Statecharts and XState v5 make every task's lifecycle a machine that can be drawn, checked and resumed.",
};

/** Tokens of a text, roughly as an OpenAI tokenizer counts English (four characters a token). */
const tokens = (text: string) => Math.ceil(text.length / 4);

/**
 * The stand-in's answer to one chat-completions request, told apart by the persona in its system
 * message: the researcher looks up its terms, then answers from them; the writer drafts; the editor
 * answers with the JSON its schema asks for; the summarizer merges them. Anything else is a 400, so a changed crew cannot record
 * answers meant for another request.
 */
export function standInReply(request: WireRequest): WireReply {
  const system = String(request.messages[0]?.content ?? '');
  const prompt = tokens(JSON.stringify({ messages: request.messages, tools: request.tools ?? [] }));
  const reply = (content: string): WireReply => ({ content, usage: { prompt, completion: tokens(content) } });
  if (system.startsWith('You are Researcher.')) {
    const looked = request.messages.filter((m) => m.role === 'tool').length;
    if (looked === 0) {
      const toolCalls = ANSWERS.lookups.map((term, i) => ({
        id: `call_${i + 1}`,
        name: 'lookup',
        arguments: { term },
      }));
      return { toolCalls, usage: { prompt, completion: 12 * toolCalls.length } };
    }
    if (looked === ANSWERS.lookups.length) return reply(ANSWERS.research);
  }
  if (system.startsWith('You are Writer.')) return reply(ANSWERS.draft);
  if (system.startsWith('You are Editor.') && request.response_format !== undefined) {
    return reply(JSON.stringify(ANSWERS.edited));
  }
  if (system.startsWith('You are Summarizer.')) return reply(ANSWERS.summary);
  return { status: 400, error: `the stand-in has no answer for this request (system: ${system})` };
}

/**
 * Runs the example's crew against the stand-in with the example's record mode, writing `cassette`
 * (the committed one by default), then adds the cassette's {@link STAND_IN_NOTE}.
 */
export async function recordCassette(cassette: string = CASSETTE): Promise<CrewOutput> {
  const server = await startOpenAiServer((request) => standInReply(request));
  let out: CrewOutput;
  try {
    const choice = pickModel({ STATECREW_BASE_URL: server.url, STATECREW_RECORD: '1' }, cassette);
    out = await researchCrew(choice.model).crew.kickoff({ inputs: INPUTS });
  } finally {
    await server.close();
  }
  if (out.status !== 'completed') {
    throw new Error(`recording failed: ${Object.values(out.errors).join('; ')}`);
  }
  const { version, recordings } = JSON.parse(readFileSync(cassette, 'utf8')) as {
    version: number;
    recordings: unknown[];
  };
  writeFileSync(cassette, `${JSON.stringify({ version, note: STAND_IN_NOTE, recordings }, null, 2)}\n`);
  return out;
}

async function main(): Promise<void> {
  const out = await recordCassette();
  console.log(`recorded ${out.usage.calls} model calls to ${relative(process.cwd(), CASSETTE)}`);
}

if (isMain(import.meta.url)) await main();
