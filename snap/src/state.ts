// The Snap's managed state (encrypted by MetaMask): the token, the cached Golems and what was notified.
import type { Json } from '@metamask/snaps-sdk'
import { emptyState, type SnapState } from './types.ts'

export async function getState(): Promise<SnapState> {
  const stored = await snap.request({ method: 'snap_manageState', params: { operation: 'get' } })
  return { ...emptyState(), ...((stored ?? {}) as Partial<SnapState>) }
}

export async function setState(state: SnapState): Promise<void> {
  await snap.request({ method: 'snap_manageState', params: { operation: 'update', newState: state as unknown as Record<string, Json> } })
}
