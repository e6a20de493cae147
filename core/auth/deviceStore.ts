// What device-code sign-in keeps: a user code until it is confirmed, the owner's decision until the
// CLI collects it, and the spent refresh tokens. Every entry is single use and keyed by a hash or a
// code, never by the device code or a token itself.
import type { Address, Hex } from 'viem'
import type { DeviceDecision } from './deviceCode.ts'

export type TakeResult<T> = { taken: true; value: T } | { taken: false; reason: 'unknown' | 'used' | 'expired' }

export interface DeviceAuthStore {
  /** False when the user code is already in use (the caller draws another). */
  openUserCode(p: { userCode: string; device: Hex; expiresAt: number; now: number }): Promise<boolean>
  /** Takes the user code for its one confirmation. */
  takeUserCode(p: { userCode: string; now: number }): Promise<TakeResult<{ device: Hex }>>
  recordDecision(p: { device: Hex; owner: Address; decision: DeviceDecision; expiresAt: number; now: number }): Promise<void>
  /** Takes the owner's decision for the one token it yields; `unknown` while the owner has not decided. */
  takeDecision(p: { device: Hex; now: number }): Promise<TakeResult<{ owner: Address; decision: DeviceDecision }>>
  /** Marks a refresh token spent; false when it already was. */
  spendRefreshToken(p: { id: Hex; expiresAt: number; now: number }): Promise<boolean>
}
