import type BetterSqlite3 from 'better-sqlite3';

/**
 * WAL pages after which a commit of the store's connection checkpoints on its own (SQLite's
 * default is 1,000, about 4 MB): raised so that a busy store checkpoints ten times less often, each
 * checkpoint's two `fsync`s shared by ten times more commits. An idle store checkpoints sooner.
 */
export const AUTOCHECKPOINT_PAGES = 10_000;

/** How often an idle checkpointer looks whether the store has written since it last looked, in ms. */
const IDLE_MS = 250;

/**
 * Takes the WAL's checkpoint off the step path: the connection's automatic checkpoint is raised to
 * {@link AUTOCHECKPOINT_PAGES}, and once the store has written and then stayed idle for a whole
 * {@link IDLE_MS} (no write since the last look), one PASSIVE checkpoint runs — it waits for no
 * reader or writer, and a busy file simply leaves it to the next one.
 */
export class IdleCheckpointer {
  #timer: ReturnType<typeof setInterval> | undefined;
  #since = false;

  constructor(private readonly db: BetterSqlite3.Database) {
    db.pragma(`wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);
  }

  /** The store wrote: checkpoint once it has been idle a while. */
  wrote(): void {
    this.#since = true;
    if (this.#timer !== undefined) return;
    this.#timer = setInterval(() => this.#look(), IDLE_MS);
    this.#timer.unref();
  }

  /** Stops looking (the store closes; closing the file checkpoints it). */
  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #look(): void {
    if (this.#since) {
      this.#since = false;
      return;
    }
    this.stop();
    try {
      this.db.pragma('wal_checkpoint(PASSIVE)');
    } catch {
      // A file another process holds, or one closed under the store: the next checkpoint does it.
    }
  }
}
