import { describe, expect, it } from 'vitest';
import { and, createFlow, or } from '../../../src/index.js';

const noop = () => undefined;
const base = () => createFlow({ name: 'f', initialState: {} }).start('s', noop);

describe('flow definition errors', () => {
  it('throws duplicate_step from the builder call that repeats a name', () => {
    expect(() => base().listen('s', 's', noop)).toThrow(expect.objectContaining({ code: 'duplicate_step' }));
    expect(() => base().listen('x', 's', noop).listen('x', 's', noop)).toThrow(
      'Flow "f" already has a step named "x" (duplicate_step)',
    );
  });

  it('throws name_clash when a step and a route label share a name, in either order', () => {
    expect(() =>
      base()
        .router('r', 's', () => 'go', { routes: ['go', 'stop'] })
        .listen('go', 'r', noop),
    ).toThrow('Flow "f": "go" is both a step and a route label of router "r" (name_clash)');
    expect(() =>
      base()
        .listen('go', 's', noop)
        .router('r', 's', () => 'go', { routes: ['go', 'stop'] }),
    ).toThrow(expect.objectContaining({ code: 'name_clash' }));
    expect(() => base().router('r', 's', () => 'r', { routes: ['r'] })).toThrow(
      expect.objectContaining({ code: 'name_clash' }),
    );
  });

  it('throws self_trigger for a step whose trigger includes itself', () => {
    expect(() => base().listen('loop', or('s', and('loop', 's')), noop)).toThrow(
      'Flow "f": step "loop" is triggered by itself (self_trigger)',
    );
  });

  it('throws missing_routes for a router without routes', () => {
    const build = () => base().router('r', 's', () => 'x' as never, { routes: [] });
    expect(build).toThrow(expect.objectContaining({ code: 'missing_routes' }));
    expect(() => base().router('r', 's', () => 'x', undefined as never)).toThrow(
      expect.objectContaining({ code: 'missing_routes' }),
    );
  });

  it('throws unknown_trigger from kickoff, before any step, for a typo', async () => {
    let ran = false;
    const flow = createFlow({ name: 'f', initialState: {} })
      .start('draft', () => {
        ran = true;
      })
      .listen('publish', 'drfat', noop);
    await expect(flow.kickoff()).rejects.toThrow(
      'Flow "f": step "publish" listens to "drfat", which is neither a step nor a route label (unknown_trigger)',
    );
    expect(ran).toBe(false);
  });

  it('accepts triggers naming steps and routes declared later', async () => {
    const flow = createFlow({ name: 'f', initialState: {} })
      .start('s', () => 's')
      .listen('after', 'later', () => 'after')
      .listen('later', 's', () => 'later');
    expect((await flow.kickoff()).trail).toEqual(['s', 'later', 'after']);
  });

  it('refuses a flow without a start step (no_start) and bad options (invalid_option)', async () => {
    await expect(
      createFlow({ name: 'f', initialState: {} }).listen('a', 'b', noop).listen('b', 'a', noop).kickoff(),
    ).rejects.toThrow(expect.objectContaining({ code: 'no_start' }));
    expect(() => base().listen('x', 's', noop, { maxRuns: 0 })).toThrow(
      expect.objectContaining({ code: 'invalid_option' }),
    );
    expect(() => base().listen('x', or(), noop)).toThrow(expect.objectContaining({ code: 'invalid_option' }));
    expect(() => base().listen('x', 's', 'nope' as never)).toThrow(
      expect.objectContaining({ code: 'invalid_option' }),
    );
  });
});
