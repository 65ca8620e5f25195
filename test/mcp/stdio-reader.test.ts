import { describe, expect, it } from 'vitest';
import { answeredId, MessageReader } from '../../src/mcp/stdio-reader.js';

const line = (message: object) => Buffer.from(`${JSON.stringify(message)}\n`);

describe('reading a stdio MCP server', () => {
  it('reads messages up to the limit, across chunks and several in one chunk', () => {
    const answer = line({ jsonrpc: '2.0', id: 1, result: { text: 'x'.repeat(50) } });
    const reader = new MessageReader(answer.length - 1);
    const halves = [answer.subarray(0, 20), Buffer.concat([answer.subarray(20), answer])];
    const read = halves.flatMap((chunk) => [...reader.push(chunk)]);
    expect(read).toHaveLength(2);
    expect(read[0]).toMatchObject({ kind: 'message', message: { id: 1, result: { text: 'x'.repeat(50) } } });
  });

  it('skips a longer message, reporting its size and the request it answers, and reads on', () => {
    const reader = new MessageReader(100);
    const big = line({ result: { text: 'x'.repeat(5000) }, jsonrpc: '2.0', id: 7 });
    const next = line({ jsonrpc: '2.0', id: 8, result: {} });
    const chunks = [
      big.subarray(0, 1000),
      big.subarray(1000, 4000),
      Buffer.concat([big.subarray(4000), next]),
    ];
    const read = chunks.flatMap((chunk) => [...reader.push(chunk)]);
    expect(read).toEqual([
      { kind: 'too-large', bytes: big.length - 1, id: 7 },
      { kind: 'message', message: { jsonrpc: '2.0', id: 8, result: {} } },
    ]);
  });

  it('finds the id of a response at its start or its end, and none for a notification or a request', () => {
    const id = (message: string) =>
      answeredId(Buffer.from(message.slice(0, 512)), Buffer.from(message.slice(-128)));
    expect(id(`{"jsonrpc":"2.0","id":"a-1","result":{"text":"${'x'.repeat(900)}"}}`)).toBe('a-1');
    expect(id(`{"id":3,"jsonrpc":"2.0","error":{"message":"${'x'.repeat(900)}"}}`)).toBe(3);
    expect(id(`{"result":{"text":"${'x'.repeat(900)}","id":2},"jsonrpc":"2.0","id":9}`)).toBe(9);
    expect(id(`{"result":{"text":"${'x'.repeat(900)}","id":2}}`)).toBeUndefined();
    expect(
      id(`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"${'x'.repeat(900)}"}}`),
    ).toBe(undefined);
    expect(
      id(`{"jsonrpc":"2.0","id":4,"method":"sampling/createMessage","params":{"x":"${'x'.repeat(900)}"}}`),
    ).toBe(undefined);
  });
});
