// On Base the DelegationManager and the framework's period enforcers are shared by every MetaMask user;
// the indexer keeps a delegation only when it touches Bardo. This is the part of that rule that needs
// no database (the handlers add "a party is a known Golem" and "the hash is already known").
import type { Address } from 'viem'

export function bardoEnforcerSet(addresses: readonly Address[], ignore: Address): Set<string> {
  return new Set(addresses.filter((a) => a.toLowerCase() !== ignore.toLowerCase()).map((a) => a.toLowerCase()))
}

/** True when a caveat of the delegation names one of Bardo's enforcers. */
export function hasBardoCaveat(caveats: readonly { enforcer: Address }[], bardoEnforcers: ReadonlySet<string>): boolean {
  for (const caveat of caveats) if (bardoEnforcers.has(caveat.enforcer.toLowerCase())) return true
  return false
}
