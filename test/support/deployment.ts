// A whole deployment for tests that need one without a chain: the three oracles and the nine Bardo
// enforcers at made-up addresses, as the deployment file holds them.
import { bardoEnforcerNames, type BardoEnforcerName } from '../../core/deployment.ts'

const addr = (n: number) => `0x${n.toString(16).padStart(40, '0')}` as const

/** Oracles at base + 1…3, enforcers at base + 0x1001… in bardoEnforcerNames order. */
export function testDeployment(base = 0x1000) {
  return {
    vitalityOracle: addr(base + 1),
    dreamOracle: addr(base + 2),
    daimonOracle: addr(base + 3),
    enforcers: Object.fromEntries(bardoEnforcerNames.map((name, i) => [name, addr(base + 0x1001 + i)])) as Record<
      BardoEnforcerName,
      `0x${string}`
    >,
  }
}
