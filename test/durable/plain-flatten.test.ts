import { stringify } from 'devalue';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeRunValue, UnstorableValueError } from '../../src/runtime/durable/codec.js';
import { flattenPlain } from '../../src/runtime/durable/plain-flatten.js';

/** What devalue's own encoding gives: the stored form before the direct one. */
const viaDevalue = (value: unknown) => JSON.parse(stringify(value));

describe('flattenPlain: devalue’s flat form of plain data, built directly', () => {
  it('matches devalue slot for slot on plain data, undefined members included', () => {
    const plain = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        fc.string(),
        fc.boolean(),
        fc.constant(null),
        fc.constant(undefined),
        fc.integer(),
        fc.double({ noNaN: true, noDefaultInfinity: true }).filter((n) => !Object.is(n, -0)),
        fc.array(tie('value')),
        fc.dictionary(fc.string(), tie('value'), { noNullPrototype: true }),
      ),
    })).value;
    fc.assert(
      fc.property(plain, (value) => {
        expect(flattenPlain(value)).toEqual(viaDevalue(value));
      }),
      { numRuns: 500 },
    );
  });

  it('keeps shared and circular references as devalue does', () => {
    const shared = { k: 'v' };
    const circular: Record<string, unknown> = { name: 'c', list: [1, 'x', 1, 'x'] };
    circular.self = circular;
    const cases = [
      { a: shared, b: shared, c: [shared] },
      circular,
      ['same', 'same', 2, 2, true, true, null, null],
      { n: 1, id: 'run-1' },
      'step 1',
      undefined,
    ];
    for (const value of cases) expect(flattenPlain(value)).toEqual(viaDevalue(value));
    expect(flattenPlain(undefined)).toBe(-1);
  });

  it('leaves to devalue what is not plain data', () => {
    class Point {
      x = 1;
    }
    const sparse = [1, 2, 3];
    delete sparse[1];
    const withSymbol = { a: 1, [Symbol('s')]: 2 };
    const protoKey = JSON.parse('{"__proto__": 1}');
    const others = [
      new Date(0),
      new Map([[1, 2]]),
      new Set([1]),
      Number.NaN,
      Number.POSITIVE_INFINITY,
      -0,
      1n,
      /re/g,
      new Point(),
      Object.create(null),
      sparse,
      withSymbol,
      protoKey,
      { nested: { when: new Date(0) } },
      () => 1,
    ];
    for (const value of others) expect(flattenPlain(value)).toBeUndefined();
  });
});

describe('encodeRunValue', () => {
  it('stores exactly what devalue’s encoding stored, for any value it keeps', () => {
    fc.assert(
      fc.property(
        fc.anything({ withDate: true, withMap: true, withSet: true, withBigInt: true }),
        (value) => {
          expect(encodeRunValue(value)).toEqual(viaDevalue(value));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('still names where an unstorable value is', () => {
    expect(() => encodeRunValue({ customer: { onPay: () => 1 } })).toThrow(UnstorableValueError);
    expect(() => encodeRunValue({ customer: { onPay: () => 1 } })).toThrow(/\.customer\.onPay/);
  });
});
