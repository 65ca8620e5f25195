/**
 * Option `K` of options type `T` retyped as `V` — a generic's parameter, which a schema cannot hold —
 * keeping its docs and whether it is optional (the mapping over `Pick<T, K>` keeps both).
 */
export type Retyped<T, K extends keyof T, V> = { [P in keyof Pick<T, K>]: V };

/** Option `K` of `T` retyped as `V` and required, keeping its docs. */
export type RetypedRequired<T, K extends keyof T, V> = { [P in keyof Pick<T, K>]-?: V };
