import type { TaskPrompt } from './conversation.js';

/**
 * What a task with `markdown: true` adds to its prompt, after the expected output: CrewAI's own
 * instruction (`Task.markdown`), word for word, so a crew moved over asks its models the same.
 */
export const MARKDOWN_INSTRUCTION = `Your final answer MUST be formatted in Markdown syntax.
Follow these guidelines:
- Use # for headers
- Use ** for bold text
- Use * for italic text
- Use - or * for bullet points
- Use \`code\` for inline code
- Use \`\`\`language for code blocks`;

/** `prompt` with the Markdown instruction on lines of its own after the task lines. */
export function withMarkdown(prompt: TaskPrompt): TaskPrompt {
  const note = `\n${MARKDOWN_INSTRUCTION}`;
  return { ...prompt, text: prompt.text + note, task: prompt.task + note };
}
