export { DynamoCouncilStore, DynamoStore, DynamoTickStore, type DynamoStoreOptions } from './dynamoStore.ts'
export { InMemoryStore, type InMemoryStoreOptions } from './memoryStore.ts'
