// A store with some of its methods replaced, for suites that stage a race or a crash at one store call
// (another tick claiming first, a write refused): every other method is the store's own, bound to it.

/** `store` with `overrides` in place of its own methods of those names. */
export function storeWith<S extends object>(store: S, overrides: { [K in keyof S]?: S[K] }): S {
  return new Proxy(store, {
    get(target, key) {
      const own = overrides[key as keyof S]
      if (own !== undefined) return own
      const value = Reflect.get(target, key) as unknown
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value
    },
  })
}
