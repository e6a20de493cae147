// The error decoder's ABI is exactly what the contracts declare: a contract change that adds, removes or
// changes an error fails here until adapters/chain/chainErrorsAbi.ts is regenerated.
import { describe, expect, it } from 'vitest'
import { chainErrorsAbi } from './chainErrorsAbi.ts'
import { deriveChainErrorsAbi } from './chainErrorsSource.ts'

describe('chainErrorsAbi', () => {
  it('holds every custom error of the Bardo artifacts and the DelegationManager, one per signature', () => {
    expect(chainErrorsAbi, 'regenerate: npx tsx adapters/chain/chainErrorsSource.ts > adapters/chain/chainErrorsAbi.ts').toEqual(
      deriveChainErrorsAbi(),
    )
  })
})
