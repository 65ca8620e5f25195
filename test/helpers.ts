import { Agent, type Llm } from '../src/index.js';
import { type ScriptedModel, scriptedModel } from '../src/testing.js';

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
  return scriptedModel((request) => `${request.agent}: ${taskLine(request.prompt).slice('Task: '.length)}`);
}

/** An agent with the given role and model. */
export function agent(role: string, llm: Llm): Agent {
  return new Agent({ role, llm });
}
