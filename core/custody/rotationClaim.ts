// The store's name for a rotation's new key: claimed for the key it replaces, so each key belongs to one
// Golem and is rotated away once, and the owner's answer finds the key it grants to.
import type { Address } from 'viem'

/** The claimant of a rotation away from `oldKey`. */
export const rotationClaimant = (oldKey: Address) => `rotation:${oldKey.toLowerCase()}`
