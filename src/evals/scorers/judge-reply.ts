/** Reading a judge's reply: its score (the first number, or a JSON reply's score field) and its reason. */

/** What a judge's reply says: its score on the judge's scale, and why. */
export interface JudgeReply {
  value: number;
  reason: string;
}

/** The fields a JSON reply's score is looked for in, in order, before any other number. */
const SCORE_KEYS = ['score', 'quality', 'rating', 'value', 'grade'];
/** The fields a JSON reply's reason is looked for in. */
const REASON_KEYS = ['reason', 'reasoning', 'explanation', 'justification', 'feedback', 'comment'];

const NUMBER = /-?\d+(?:\.\d+)?/;
/** What may follow the score before the reason starts: `/10`, `out of 10`, punctuation, markup. */
const AFTER_SCORE = /^(?:\s*(?:\/|out of)\s*\d+(?:\.\d+)?)?[\s.,:;!)\]*_\-–—]*/i;

const asNumber = (value: unknown): number | undefined => {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof n === 'number' && Number.isFinite(n) ? n : undefined;
};

/** A reply that is a JSON object (in a ``` fence or not): its score field and reason field. */
function readJsonReply(reply: string): JudgeReply | undefined {
  const body = reply
    .trim()
    .replace(/^```(?:json)?\s*/i, '')
    .replace(/\s*```$/, '');
  if (!body.startsWith('{')) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
  const fields = parsed as Record<string, unknown>;
  const keys = [...SCORE_KEYS.filter((key) => key in fields), ...Object.keys(fields)];
  const value = keys.map((key) => asNumber(fields[key])).find((n) => n !== undefined);
  if (value === undefined) return undefined;
  const reason = REASON_KEYS.map((key) => fields[key]).find((text) => typeof text === 'string');
  return { value, reason: typeof reason === 'string' ? reason.trim() : '' };
}

/**
 * A judge's reply read: a JSON object's score (`{ "quality": 9, "reason": "…" }`, as CrewAI's judge
 * answers), else the first number in the text, its reason the text after it (`8/10 - clear` gives 8
 * and `clear`). Undefined when the reply holds no number.
 */
export function readJudgeReply(reply: string): JudgeReply | undefined {
  const json = readJsonReply(reply);
  if (json !== undefined) return json;
  const match = NUMBER.exec(reply);
  if (match === null) return undefined;
  const rest = reply.slice(match.index + match[0].length).replace(AFTER_SCORE, '');
  return { value: Number(match[0]), reason: rest.trim() };
}
