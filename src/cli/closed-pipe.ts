import type { CliIo } from './output.js';

/** A stream the CLI writes to: a terminal, a file or a pipe. */
type OutputStream = NodeJS.WriteStream;

/**
 * `stream` as the CLI writes to it: once its reader has gone (`EPIPE`, as when the output is piped
 * into `head`), later writes are dropped instead of the process crashing on an unhandled `error`
 * event, so a run goes on to its end and is kept in the store; any other write error still throws.
 */
export function survivingClosedPipe(stream: OutputStream): CliIo['stdout'] {
  let readerGone = false;
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    readerGone = true;
  });
  return {
    write: (text: string) => (readerGone ? false : stream.write(text)),
    get isTTY() {
      return stream.isTTY;
    },
    get columns() {
      return stream.columns;
    },
    get rows() {
      return stream.rows;
    },
  };
}
