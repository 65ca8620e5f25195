/**
 * The peer suite's two kinds of case. Each CrewAI test ported is one `it`, named `file.py::test_name`
 * as CrewAI names it, asserting what CrewAI asserts:
 *
 * - {@link peer}: statecrew does what CrewAI does; the case passes.
 * - {@link difference}: statecrew deliberately does something else, listed with its reason in
 *   `docs/crewai.md` under "Differences from CrewAI". The case runs CrewAI's assertions as they are
 *   and passes only while they fail on an expectation (or on a coded statecrew refusal): once
 *   statecrew does what CrewAI does, the case fails and asks to be made a peer case. `ours`, when
 *   given, asserts what statecrew does instead.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { isStatecrewError } from '../../../src/index.js';

/**
 * A turn of the event loop: where CrewAI's async steps `await asyncio.sleep(...)` to let other work
 * run, without a timer.
 */
export function nextTurn(): Promise<void> {
  return new Promise((done) => setImmediate(done));
}

/** The commit of github.com/crewAIInc/crewAI the cases were ported from (`lib/crewai/tests/`). */
export const CREWAI_COMMIT = 'f4731f5025f861c78e3af0487cc80bf5e7c64782';

type Body = () => unknown;

const DOC = fileURLToPath(new URL('../../../docs/crewai.md', import.meta.url));

/** The case names `docs/crewai.md` lists under "Differences from CrewAI", each in backticks. */
export function documentedDifferences(): Set<string> {
  const text = readFileSync(DOC, 'utf8');
  const start = text.indexOf('## Differences from CrewAI');
  if (start < 0) return new Set();
  const end = text.indexOf('\n## ', start + 1);
  const section = text.slice(start, end < 0 ? undefined : end);
  return new Set([...section.matchAll(/`([\w./-]+\.py::\w+)`/g)].map((match) => match[1] as string));
}

/** A case name as CrewAI's pytest ids have it: `test_flow.py::test_simple_sequential_flow`. */
function checkName(name: string): void {
  if (!/^test_\w+\.py::\w+$/.test(name))
    throw new Error(`peer case "${name}" is not named file.py::test_name`);
}

/** A CrewAI test statecrew passes as CrewAI does. */
export function peer(name: string, body: Body, timeout?: number): void {
  checkName(name);
  it(
    name,
    async () => {
      await body();
    },
    timeout,
  );
}

/** Whether `error` is a failed expectation (vitest's `expect`) rather than a broken port. */
function isExpectationFailure(error: unknown): boolean {
  return (
    error instanceof Error && (error.name === 'AssertionError' || error.constructor.name === 'AssertionError')
  );
}

/**
 * A CrewAI test on which statecrew deliberately differs: `crewai` holds CrewAI's assertions, unchanged,
 * and must fail on one of them (or on a coded statecrew refusal: a `StatecrewError`), never on a
 * `TypeError` of the port itself; `docs/crewai.md` must list `name` with its reason; `ours` asserts
 * what statecrew does instead.
 */
export function difference(name: string, crewai: Body, ours?: Body, timeout?: number): void {
  checkName(name);
  it(
    name,
    async () => {
      expect(
        documentedDifferences(),
        `docs/crewai.md lists ${name} under "Differences from CrewAI"`,
      ).toContain(name);
      let failure: unknown;
      try {
        await crewai();
      } catch (error) {
        failure = error;
      }
      expect(failure, `${name} now does what CrewAI does: make it a peer case`).toBeDefined();
      if (!isExpectationFailure(failure) && !isStatecrewError(failure)) throw failure;
      if (ours !== undefined) await ours();
    },
    timeout,
  );
}
