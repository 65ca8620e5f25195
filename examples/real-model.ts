/**
 * The research crew on a real model: a researcher with a typed `lookup` tool (a real tool loop), a
 * writer who reads the research, and an editor whose answer is structured output (a title and a
 * paragraph, checked against a zod schema), then a summary node that merges their work. With `OPENAI_API_KEY` (or an OpenAI-compatible
 * `STATECREW_BASE_URL`) set, it calls the provider through the AI SDK; with neither, it replays the
 * recorded cassette `cassettes/real-model.json`: no network, no key.
 *
 * Run: npx tsx examples/real-model.ts                                   (offline, on the cassette)
 *      OPENAI_API_KEY=… npx tsx examples/real-model.ts                  (live; STATECREW_MODEL picks the model)
 *      STATECREW_BASE_URL=http://localhost:11434/v1 STATECREW_MODEL=llama3.1 npx tsx examples/real-model.ts
 *      STATECREW_RECORD=1 OPENAI_API_KEY=… npx tsx examples/real-model.ts  (live, and re-records the cassette)
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createOpenAI } from '@ai-sdk/openai';
import { z } from 'zod';
import { fromAiSdk } from '../src/ai-sdk.js';
import {
  Agent,
  Crew,
  type CrewOutput,
  createRecordReplay,
  defineTool,
  type Model,
  type ModelPrice,
  type StatecrewEvent,
  Task,
} from '../src/index.js';
import { toCrewView, writeRunView } from '../src/view/index.js';
import { isMain } from './main.js';

/** The committed cassette the example replays when no provider is configured. */
export const CASSETTE = fileURLToPath(new URL('./cassettes/real-model.json', import.meta.url));

/** Where `npm start` writes the view of this run. */
export const VIEW_FILE = join('.statecrew', 'views', 'real-model.html');

/** The model asked when `STATECREW_MODEL` names none (and the one the cassette was recorded with). */
export const DEFAULT_MODEL = 'gpt-4.1-mini';

/** What the example's models cost, in US dollars per million tokens, by `Model.id`. */
export const PRICES: Readonly<Record<string, ModelPrice>> = {
  'openai:gpt-4.1': { inputPerMTok: 2, outputPerMTok: 8 },
  'openai:gpt-4.1-mini': { inputPerMTok: 0.4, outputPerMTok: 1.6 },
  'openai:gpt-4.1-nano': { inputPerMTok: 0.1, outputPerMTok: 0.4 },
};

/** The crew's inputs: what it researches and writes about. */
export const INPUTS = { topic: 'actors for orchestrating AI agents' };

/** The researcher's reference shelf: the facts `lookup` answers with, by term. */
export const FACTS: Readonly<Record<string, string>> = {
  'actor model':
    'Carl Hewitt, Peter Bishop and Richard Steiger introduced the actor model in 1973. An actor handles ' +
    'one message at a time; in response it can send messages, create new actors and decide how it ' +
    'handles its next message.',
  statecharts:
    'David Harel introduced statecharts in 1987 ("Statecharts: A Visual Formalism for Complex Systems"). ' +
    'They extend finite state machines with nested states, parallel regions and broadcast events.',
  supervision:
    'In Erlang/OTP a supervisor restarts the processes it supervises when they fail, following a restart ' +
    'strategy such as one_for_one ("let it crash").',
  xstate:
    'XState is a TypeScript library for state machines, statecharts and actors. In XState v5 the actor is ' +
    'the basic unit: every running machine is an actor that receives events and can invoke or spawn ' +
    'other actors.',
};

/** A typed tool over {@link FACTS}: an unknown term answers with the terms it knows. */
export const lookup = defineTool({
  name: 'lookup',
  description: 'Look up a term in the reference shelf and return what it says, to cite.',
  input: z.object({ term: z.string().describe('The term to look up, for example "actor model"') }),
  execute: ({ term }) =>
    FACTS[term.trim().toLowerCase()] ??
    `No entry for "${term}". Known terms: ${Object.keys(FACTS).join(', ')}.`,
});

/** The editor's answer, as structured output. */
export const Edited = z.object({
  title: z.string().describe('A title of at most eight words'),
  paragraph: z.string().describe('The edited paragraph'),
});

/** The research crew (research → write → edit) with every agent on `llm`, priced by {@link PRICES}. */
export function researchCrew(llm: Model) {
  const researcher = new Agent({
    role: 'Researcher',
    goal: 'find accurate, sourced facts about {topic}',
    backstory: 'a former reference librarian who cites a source for every claim',
    tools: [lookup],
    maxIter: 4,
    llm,
  });
  const writer = new Agent({
    role: 'Writer',
    goal: 'explain {topic} plainly to engineers',
    backstory: 'a technical writer who prefers short sentences and concrete examples',
    llm,
  });
  const editor = new Agent({
    role: 'Editor',
    goal: 'make the text short, correct and easy to read',
    backstory: 'a copy editor who cuts every word that does not earn its place',
    llm,
  });
  const research = new Task({
    name: 'research',
    description: 'Research {topic}. Look up every fact you use with the lookup tool.',
    expectedOutput: 'Three bullet points, one fact each, naming the term it came from',
    agent: researcher,
  });
  const write = new Task({
    name: 'write',
    description: 'Write a short paragraph on {topic} for engineers new to it, using only the research.',
    expectedOutput: 'One paragraph of at most 90 words',
    agent: writer,
    context: [research],
  });
  const edit = new Task({
    name: 'edit',
    description: 'Edit the paragraph: tighten it and give it a title.',
    expectedOutput: 'A title and the edited paragraph',
    agent: editor,
    outputSchema: Edited,
  });
  const crew = new Crew({
    tasks: [research, write, edit],
    goal: 'a short article on {topic}',
    prices: PRICES,
    // One more node after the tasks: a summarizer merges their outputs into `out.summary`.
    summarize: { llm, expectedOutput: 'Two sentences for a reader in a hurry' },
  });
  return { crew, researcher, writer, editor, research, write, edit };
}

/** Environment variables the example reads (a subset of `process.env`). */
export type ExampleEnv = Readonly<Record<string, string | undefined>>;

/** The model {@link pickModel} chose, and how to describe it. */
export interface ModelChoice {
  /** `live`: the provider; `record`: the provider, each answer written to the cassette; `replay`: the cassette only. */
  mode: 'live' | 'record' | 'replay';
  model: Model;
  /** The model's id, as {@link PRICES} names it. */
  id: string;
  /** Where the answers come from: the mode's line, then any more to say about it. */
  source: string[];
}

const isSet = (value: string | undefined): value is string => value !== undefined && value !== '';

const shown = (path: string) => relative(process.cwd(), path) || path;

/** The `note` of a cassette file, when it has one (the loader ignores keys it does not know). */
export function cassetteNote(cassette: string): string | undefined {
  if (!existsSync(cassette)) return undefined;
  const file = JSON.parse(readFileSync(cassette, 'utf8')) as { note?: unknown };
  return typeof file.note === 'string' ? file.note : undefined;
}

/**
 * The model from `env`: with `OPENAI_API_KEY` or `STATECREW_BASE_URL`, the provider's chat model
 * `STATECREW_MODEL` (default {@link DEFAULT_MODEL}) through `fromAiSdk`, recording to `cassette`
 * when `STATECREW_RECORD=1`; with neither, `cassette` replayed offline.
 */
export function pickModel(env: ExampleEnv = process.env, cassette: string = CASSETTE): ModelChoice {
  const apiKey = env.OPENAI_API_KEY;
  const baseURL = env.STATECREW_BASE_URL;
  const record = env.STATECREW_RECORD === '1';
  if (!isSet(apiKey) && !isSet(baseURL)) {
    if (record) {
      throw new Error('STATECREW_RECORD=1 records from a provider: set OPENAI_API_KEY or STATECREW_BASE_URL');
    }
    const note = cassetteNote(cassette);
    const id = `openai:${DEFAULT_MODEL}`;
    return {
      mode: 'replay',
      model: createRecordReplay(undefined, { cassette, mode: 'replay', id }),
      id,
      source: [
        `replaying the cassette ${shown(cassette)} (no network, no key)`,
        ...(note === undefined ? [] : [`note: ${note}`]),
        'run it live: set OPENAI_API_KEY, or STATECREW_BASE_URL for an OpenAI-compatible server',
      ],
    };
  }
  const name = isSet(env.STATECREW_MODEL) ? env.STATECREW_MODEL : DEFAULT_MODEL;
  // A local OpenAI-compatible server (Ollama, vLLM, …) wants no key, but the provider sends one.
  const provider = createOpenAI({
    apiKey: isSet(apiKey) ? apiKey : 'not-needed',
    ...(isSet(baseURL) ? { baseURL } : {}),
  });
  const live = fromAiSdk(provider.chat(name));
  const id = live.id ?? `openai:${name}`;
  const where = `live: ${name} at ${isSet(baseURL) ? baseURL : 'https://api.openai.com/v1'}`;
  if (!record) return { mode: 'live', model: live, id, source: [where] };
  return {
    mode: 'record',
    model: createRecordReplay(live, { cassette, mode: 'record' }),
    id,
    source: [where, `recording every answer to ${shown(cassette)}`],
  };
}

const firstLine = (text: string, width = 96) => {
  const line = text.trim().split('\n')[0] ?? '';
  return line.length > width ? `${line.slice(0, width - 1)}…` : line;
};

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** A short readable report of a run: where the answers came from, each task, its tool calls, usage and cost. */
export function report(choice: ModelChoice, out: CrewOutput): string {
  const [headline = choice.mode, ...more] = choice.source;
  const lines = ['== The research crew on a real model', `mode: ${headline}`];
  for (const fact of more) lines.push(`  ${fact}`);
  lines.push(`model: ${choice.id}`, `status: ${out.status}`, '');
  for (const [i, node] of out.nodes.entries()) {
    const output = out.tasksOutput.find((t) => t.name === node.name);
    const structured = Edited.safeParse(output?.structured);
    lines.push(
      `${i + 1}. ${node.name} by ${node.agent} (${plural(node.usage.calls, 'model call')}${structured.success ? ', structured' : ''})`,
    );
    for (const call of node.toolCalls) {
      const answer = call.error === undefined ? (call.result ?? '') : `error: ${call.error}`;
      lines.push(`   tool ${call.tool}(${JSON.stringify(call.args)}) → ${firstLine(answer, 60)}`);
    }
    if (structured.success) {
      lines.push(
        `   title: ${structured.data.title}`,
        `   paragraph: ${firstLine(structured.data.paragraph)}`,
      );
    } else if (output !== undefined) {
      lines.push(`   output: ${firstLine(output.raw)}`);
    }
  }
  for (const [nodeId, error] of Object.entries(out.errors)) lines.push(`   ${nodeId} failed: ${error}`);
  lines.push('', `summary: ${out.summary}`);
  const { usage } = out;
  const price = PRICES[choice.id];
  const cost =
    usage.costUsd === undefined || price === undefined
      ? `no price for ${choice.id}`
      : `$${usage.costUsd.toFixed(6)} (${choice.id} at $${price.inputPerMTok.toFixed(2)} / $${price.outputPerMTok.toFixed(2)} per million input / output tokens)`;
  lines.push(
    '',
    `usage: ${usage.inputTokens} input + ${usage.outputTokens} output tokens in ${plural(usage.calls, 'model call')}`,
    `cost: ${cost}`,
  );
  return lines.join('\n');
}

async function main(): Promise<void> {
  let choice: ModelChoice;
  try {
    choice = pickModel();
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exitCode = 1;
    return;
  }
  const { crew } = researchCrew(choice.model);
  const run = crew.run({ inputs: INPUTS });
  const events: StatecrewEvent[] = [];
  run.events$.subscribe((event) => events.push(event));
  const out = await run.result;
  console.log(report(choice, out));
  // The run as a self-contained page: its graph, timeline, and every node's prompt, output and usage.
  const view = await writeRunView(toCrewView(crew, { output: out, events }), VIEW_FILE);
  console.log(`\nview of the run: ${view}`);
  if (out.status !== 'completed') process.exitCode = 1;
}

if (isMain(import.meta.url)) await main();
