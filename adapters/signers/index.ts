export { createGolemSigner, type CustodyDependencies } from './createGolemSigner.ts'
export { provisionLocalKey } from './provisionLocalKey.ts'
export { defaultKeystorePath } from './keystore.ts'
