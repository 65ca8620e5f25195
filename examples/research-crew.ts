/**
 * A research crew three ways: a sequential chain (research → write → edit), the same crew with a
 * fan-in writer that reads two earlier tasks, and a hierarchical crew whose manager allocates each
 * task to a worker and synthesizes. A scripted model stands in for a real one, so the run is exact.
 *
 * Run: npm start
 */
import { Agent, Crew, type CrewOutput, type ManagerFunctions, Task } from '../src/index.js';
import { createScriptedModel, type ScriptedModel } from '../src/testing.js';
import { isMain } from './main.js';

/** A stand-in model that answers like each persona would, from the task it is given. */
export function studioModel(): ScriptedModel {
  return createScriptedModel((request) => {
    const task = request.prompt.split('\nTask: ')[1]?.split('\n')[0] ?? '';
    const read =
      request.context === '' ? 'nothing' : `${request.context.split('\n').length} line(s) of context`;
    return `[${request.agent}] ${task} (read ${read})`;
  });
}

/** The research team and its tasks, on one model. */
export function buildCrew(llm: ScriptedModel) {
  const researcher = new Agent({
    role: 'Researcher',
    goal: 'find facts about {topic}',
    backstory: 'meticulous',
    llm,
  });
  const writer = new Agent({ role: 'Writer', goal: 'explain {topic} plainly', llm });
  const editor = new Agent({ role: 'Editor', goal: 'tighten the text', llm });
  const research = new Task({
    name: 'research',
    description: 'Research {topic}',
    expectedOutput: '3 facts',
    agent: researcher,
  });
  const outline = new Task({
    name: 'outline',
    description: 'Outline an article on {topic}',
    agent: writer,
    context: [],
  });
  const write = new Task({
    name: 'write',
    description: 'Write about {topic}',
    expectedOutput: '1 paragraph',
    agent: writer,
  });
  const edit = new Task({ name: 'edit', description: 'Edit the draft', agent: editor });
  return { researcher, writer, editor, research, outline, write, edit };
}

function show(title: string, out: CrewOutput, llm: ScriptedModel): void {
  console.log(
    `\n== ${title} (${out.status}, ${out.usage.calls} model calls, ${out.usage.totalTokens} tokens)`,
  );
  for (const [i, task] of out.tasksOutput.entries()) {
    const context = llm.calls.find((c) => c.prompt.includes(`Task: ${task.description}`))?.context ?? '';
    console.log(`  ${i + 1}. ${task.name} by ${task.agent}`);
    console.log(`     context: ${context === '' ? '(none)' : JSON.stringify(context)}`);
  }
  console.log(`  final output: ${out.raw}`);
}

const byVerb: Record<string, string> = { Research: 'Researcher', Write: 'Writer', Edit: 'Editor' };

/** The three crews of the example: sequential, fan-in and hierarchical. */
export function researchCrews(llm: ScriptedModel = studioModel()) {
  const chain = buildCrew(llm);
  const sequential = new Crew({ tasks: [chain.research, chain.write, chain.edit] });
  const fanIn = buildCrew(llm);
  fanIn.write.context = [fanIn.research, fanIn.outline];
  const fanInCrew = new Crew({ tasks: [fanIn.research, fanIn.outline, fanIn.write, fanIn.edit] });
  const team = buildCrew(llm);
  const manager: ManagerFunctions = {
    allocate: (description) => byVerb[description.split(' ')[0] ?? ''] ?? 'Writer',
    synthesize: (goal, outputs) => `${goal}: ${outputs.length} contributions merged`,
  };
  const hierarchical = new Crew({
    agents: [team.researcher, team.writer, team.editor],
    tasks: [
      new Task({ name: 'research', description: 'Research {topic}' }),
      new Task({ name: 'write', description: 'Write about {topic}' }),
      new Task({ name: 'edit', description: 'Edit the draft' }),
    ],
    process: 'hierarchical',
    manager,
    goal: 'An article on {topic}',
  });
  return { sequential, fanIn: fanInCrew, hierarchical };
}

async function main(): Promise<void> {
  const inputs = { topic: 'actor-based orchestration' };

  // 1. Sequential: each task reads the previous one.
  const sequentialModel = studioModel();
  const sequential = await researchCrews(sequentialModel).sequential.kickoff({ inputs });
  show('sequential: research → write → edit', sequential, sequentialModel);

  // 2. Fan-in: the writer reads the research and an outline made without context.
  const fanInModel = studioModel();
  const fanInOut = await researchCrews(fanInModel).fanIn.kickoff({ inputs });
  show('fan-in: write reads research and outline', fanInOut, fanInModel);

  // 3. Hierarchical: a manager allocates each task by role and synthesizes the outputs.
  const hierarchicalModel = studioModel();
  const hierarchical = await researchCrews(hierarchicalModel).hierarchical.kickoff({ inputs });
  show('hierarchical: manager allocates and synthesizes', hierarchical, hierarchicalModel);
  console.log(`  delegations: ${hierarchical.delegations.map((d) => `${d.task} → ${d.role}`).join(', ')}`);
  console.log(`  manager calls: ${hierarchical.managerCalls} (tasks + 1)`);
}

if (isMain(import.meta.url)) await main();
