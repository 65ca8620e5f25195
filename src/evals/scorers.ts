/** The built-in scorers, each in a file of its own under `scorers/`. */
export { crewaiTestScorer } from './scorers/crewai-test.js';
export { exactMatch } from './scorers/exact-match.js';
export { includes } from './scorers/includes.js';
export { llmJudge } from './scorers/llm-judge.js';
export { matchesSchema } from './scorers/matches-schema.js';
export type {
  CrewaiTestScorerOptions,
  LlmJudgeOptions,
  ScorerOptions,
  SimilarityOptions,
  TextScorerOptions,
} from './scorers/options.js';
export { regex } from './scorers/regex.js';
export { similarity } from './scorers/similarity.js';
