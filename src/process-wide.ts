/**
 * A value every copy of the package loaded in one process shares: kept on `globalThis` under
 * `Symbol.for('statecrew.<name>')`, made by `make` the first time any copy asks. `name` carries the
 * value's shape version (`providers.v1`): a change of shape takes a new name, so copies of
 * different shapes keep one each instead of reading each other's.
 */
export function processWide<T>(name: string, make: () => T): T {
  const host = globalThis as Record<symbol, unknown>;
  const key = Symbol.for(`statecrew.${name}`);
  if (!(key in host)) host[key] = make();
  return host[key] as T;
}
