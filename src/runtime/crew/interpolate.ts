const PLACEHOLDER = /\{([^{}]+)\}/g;

/**
 * Replaces each `{key}` whose key is an own key of `inputs` with `String(inputs[key])`. Everything
 * else — unknown placeholders, JSON examples, stray braces — is left exactly as it was.
 *
 * @example
 * interpolate('Research {topic} as {"format": "json"}', { topic: 'AI' });
 * // 'Research AI as {"format": "json"}'
 */
export function interpolate(template: string, inputs: Readonly<Record<string, unknown>>): string {
  if (!template.includes('{')) return template;
  return template.replace(PLACEHOLDER, (whole, key: string) =>
    Object.hasOwn(inputs, key) ? String(inputs[key]) : whole,
  );
}
