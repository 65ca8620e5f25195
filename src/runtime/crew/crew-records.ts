import type { JsonValue } from '../../stores/store.js';
import type { CrewOutput } from '../../types.js';
import { RUN_KEY } from '../durable/run-key.js';
import type { RunCommits } from '../run/run-commits.js';
import { type StoredTaskResult, storedExecution, taskResultRecord } from './crew-store.js';

/**
 * What a crew run writes, on its run's commit path: each task run that settled for good, as it
 * settles (before any task that reads it starts), and the run's document with its status at the end
 * (releasing the lease).
 */
export class CrewRecords {
  constructor(
    private readonly commits: RunCommits,
    private readonly crew: string,
  ) {}

  /** Commits a settled task run; resolves once it landed or failed (never rejects). */
  task(result: StoredTaskResult): Promise<void> {
    const value = taskResultRecord(result);
    this.commits.stage({ collection: 'crew_task_results', key: result.nodeId, value });
    return this.commits.commit();
  }

  /**
   * Stages the results a new run keeps from an earlier one (a replay's, a fork's), in their order, for
   * its first commit.
   */
  keep(results: readonly StoredTaskResult[]): void {
    for (const result of results) {
      const value = taskResultRecord(result);
      this.commits.stage({ collection: 'crew_task_results', key: result.nodeId, value });
    }
  }

  /** Writes the run's document with its status and gives the lease up; `metadata.storeErrors` says what was let go. */
  async end(out: CrewOutput, startedAt: number, aborted = false): Promise<void> {
    const document = storedExecution(out, this.crew, startedAt);
    const status = aborted ? 'aborted' : document.status;
    const value = { ...document, status } as unknown as JsonValue;
    this.commits.stage({ collection: 'crew_executions', key: RUN_KEY, value });
    await this.commits.commitLast({ status, release: true });
    out.metadata.storeErrors = [...this.commits.errors];
  }
}
