// Store stand-ins for suites that stage a race or a crash at one store call (another tick claiming
// first, a write refused), or count the calls a path makes: every other method is the store's own, bound to it.

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

/** `store` with every method call counted into `counts`, by method name. */
export function countedStore<S extends object>(store: S, counts: Record<string, number>): S {
  return new Proxy(store, {
    get(target, key) {
      // The target as the receiver: the store's getters read its private fields.
      const value = Reflect.get(target, key, target) as unknown
      if (typeof value !== 'function') return value
      return (...args: unknown[]) => {
        counts[String(key)] = (counts[String(key)] ?? 0) + 1
        return (value as (...a: unknown[]) => unknown).apply(target, args)
      }
    },
  })
}
