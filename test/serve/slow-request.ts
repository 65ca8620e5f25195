import { connect } from 'node:net';

/**
 * How long a test waits for the server to give up on a request it never gets whole: far above the
 * limits the tests set (a second or less, checked every quarter of it), far below Node's own 300 s.
 */
export const GIVE_UP_BOUND_MS = 20_000;

/**
 * Sends `POST /runs` over a raw socket with `Content-Length: 100` and 10 bytes of body, then nothing;
 * resolves with what the server wrote once it closed the socket. Rejects when the server still holds
 * the socket after {@link GIVE_UP_BOUND_MS}.
 */
export function truncatedPost(url: string, token: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) });
    let answer = '';
    const bound = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the server still held the socket after ${GIVE_UP_BOUND_MS} ms: ${answer}`));
    }, GIVE_UP_BOUND_MS);
    socket.on('connect', () => {
      socket.write(
        [
          'POST /runs HTTP/1.1',
          `Host: ${hostname}:${port}`,
          `Authorization: Bearer ${token}`,
          'Content-Type: application/json',
          'Content-Length: 100',
          '',
          '{"definiti',
        ].join('\r\n'),
      );
    });
    socket.on('data', (chunk: Buffer) => {
      answer += chunk.toString();
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(bound);
      resolve(answer);
    });
  });
}

/**
 * The JSON text of `POST /runs` for `definition` whose inputs are `inputs` and, under `deep`, an
 * object `levels` deep: `{ "a": { "a": … { "leaf": true } } }`. Written as text: `JSON.stringify`
 * itself overflows the stack on such a value.
 */
export function deepRunBody(definition: string, inputs: Record<string, unknown>, levels: number): string {
  const deep = `${'{"a":'.repeat(levels - 1)}{"leaf":true}${'}'.repeat(levels - 1)}`;
  const fields = JSON.stringify(inputs).slice(1, -1);
  return `{"definition":${JSON.stringify(definition)},"id":"deep","inputs":{${fields},"deep":${deep}}}`;
}
