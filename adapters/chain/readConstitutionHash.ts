// The constitution hash the PolicyCage holds for a Golem key (zero when none was set).
import type { Address, Hex, PublicClient } from 'viem'
import { PolicyCageAbi } from '../../contracts/artifacts/index.ts'

export function readConstitutionHash(client: Pick<PublicClient, 'readContract'>, policyCage: Address, golem: Address): Promise<Hex> {
  return client.readContract({ address: policyCage, abi: PolicyCageAbi, functionName: 'constitutionHash', args: [golem] })
}
