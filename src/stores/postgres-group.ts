import { RECORD_COLUMNS, REPLACE } from './postgres-schema.js';
import { STORE_COLLECTIONS } from './store.js';

/** One run's commit, ready to send: its fence, its time, and its records as {@link commitRecordParams} gives them. */
export interface PendingCommit {
  id: string;
  token: string;
  status: string | null;
  release: boolean;
  at: number;
  /** (keys, values) text arrays per collection, in STORE_COLLECTIONS order. */
  records: string[][];
}

/**
 * The commits of several runs (one commit per run) as one statement, one transaction. Each is fenced
 * by its own token as a lone commit is: a commit that changes the head moves it on while its token
 * holds the lease; one that only writes records locks its head FOR SHARE while its token holds it
 * (a claim waits; a commit that waited on a claim re-checks the claimed row and finds its token
 * gone). Records are written only for the commits whose fence held. Parameters: $1 ids, $2 tokens,
 * $3 statuses (null: unchanged), $4 releases, $5 times, $6 format version, then per collection (in
 * STORE_COLLECTIONS order) the commits' 1-based places, keys and values, then `synchronous_commit`.
 * It resolves one row: `held`, the places of the commits whose fence held.
 */
export function groupCommitSql(name: (table: string) => string): string {
  const runs = name('runs');
  const upserts = STORE_COLLECTIONS.map((collection, i) => {
    const at = 7 + 3 * i;
    return `writes_${i} AS (
      INSERT INTO ${name(collection)} (${RECORD_COLUMNS})
      SELECT fence.id, w.key, $6::integer, w.value, fence.at
      FROM unnest($${at}::bigint[], $${at + 1}::text[], $${at + 2}::text[]) WITH ORDINALITY AS w (n, key, value, ord)
      JOIN fence ON fence.n = w.n
      ORDER BY w.ord
      ON CONFLICT (execution_id, key) ${REPLACE}
    )`;
  });
  return `WITH c AS (
      SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::boolean[], $5::bigint[])
        WITH ORDINALITY AS c (id, token, status, release, at, n)
    ),
    moved AS (
      UPDATE ${runs} AS r SET
        status = coalesce(c.status, r.status),
        version = r.version + CASE WHEN c.status IS NULL THEN 0 ELSE 1 END,
        token = CASE WHEN c.release THEN NULL ELSE r.token END,
        expires_at = CASE WHEN c.release THEN NULL ELSE r.expires_at END,
        owner = CASE WHEN c.release THEN NULL ELSE r.owner END,
        updated_at = c.at
      FROM c WHERE r.id = c.id AND r.token = c.token AND (c.status IS NOT NULL OR c.release)
      RETURNING c.n, c.id, c.at
    ),
    checked AS (
      SELECT c.n, c.id, c.at FROM ${runs} AS r JOIN c ON r.id = c.id AND r.token = c.token
      WHERE c.status IS NULL AND NOT c.release
      ORDER BY r.id
      FOR SHARE OF r
    ),
    fence AS (SELECT * FROM moved UNION ALL SELECT * FROM checked),
    ${upserts.join(',\n    ')}
    SELECT (SELECT coalesce(array_agg(n), '{}') FROM fence) AS held,
      set_config('synchronous_commit', $${7 + 3 * STORE_COLLECTIONS.length}::text, true) AS synchronous_commit`;
}

/** The parameters of {@link groupCommitSql} for `commits` (one per run). */
export function groupCommitParams(
  commits: readonly PendingCommit[],
  formatVersion: number,
  synchronousCommit: 'on' | 'off',
): unknown[] {
  const heads = [
    commits.map((c) => c.id),
    commits.map((c) => c.token),
    commits.map((c) => c.status),
    commits.map((c) => c.release),
    commits.map((c) => c.at),
  ];
  const records = STORE_COLLECTIONS.flatMap((_, i) => {
    const places: number[] = [];
    const keys: string[] = [];
    const values: string[] = [];
    commits.forEach((commit, n) => {
      const own = commit.records[2 * i] ?? [];
      own.forEach((key, k) => {
        places.push(n + 1);
        keys.push(key);
        values.push(commit.records[2 * i + 1]?.[k] as string);
      });
    });
    return [places, keys, values];
  });
  return [...heads, formatVersion, ...records, synchronousCommit];
}

/** Which of `count` commits held, from the `held` places a group commit answered. */
export function heldOf(count: number, held: readonly (number | string)[]): boolean[] {
  const places = new Set(held.map(Number));
  return Array.from({ length: count }, (_, i) => places.has(i + 1));
}
