export * from './window.ts'
export * from './counterStore.ts'
export * from './tiers.ts'
export * from './consume.ts'
