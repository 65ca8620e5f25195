import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const script = fileURLToPath(new URL('../fixtures/retained-heap.ts', import.meta.url));

describe('memory between runs', () => {
  it('keeps nothing per distinct task or step name once runs ended (measured with --expose-gc)', () => {
    // A fresh process, so the heap holds this workload only: 100 rounds of every process and a flow
    // with a crew inside, 40 distinct names each (about 20,000 names); 300 B a name would be 6 MB.
    const printed = execFileSync(process.execPath, ['--expose-gc', '--import', 'tsx', script, '100', '40'], {
      encoding: 'utf8',
    });
    const { names, bytesPerName } = JSON.parse(printed.trim().split('\n').at(-1) as string) as {
      names: number;
      bytesPerName: number;
    };
    expect(names).toBeGreaterThan(20_000);
    expect(bytesPerName).toBeLessThan(50);
  }, 120_000);
});
