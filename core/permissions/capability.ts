// The capabilities a strategy may ask for: the compiler's and the strategy document's one word list.

/** What a Golem's strategy may do on-chain; each one maps to protocols in the registry. */
export const CAPABILITIES = ['Swap', 'ProvideLiquidity', 'VaultManagement', 'Bridge', 'SpawnReplicants', 'LimitOrders'] as const
export type Capability = (typeof CAPABILITIES)[number]
