// The plan as the owner reads it before granting: the CLI prints it, the dashboard shows it beside the
// wallet's request, and the draft keeps it.
import { formatEther } from 'viem'
import { formatUsdc, type PermissionPlan } from '../permissions/index.ts'

/** The plan as the owner reads it before signing. */
export function planInWords(plan: PermissionPlan, lifeSeconds: bigint, periodSeconds: bigint): string[] {
  const lines = [
    `capabilities  ${plan.capabilities.join(', ') || 'none (runway only)'}`,
    `runway        up to ${formatUsdc(plan.dailyUsdcCap)} USDC per ${periodSeconds === 86_400n ? 'day' : `${periodSeconds} s period`} from ${plan.owner}, to the Golem's key only`,
    `gas           up to ${formatEther(plan.dailyGasCap)} ETH a day, plain transfers to the Golem's key`,
    `life          ${lifeSeconds % 86_400n === 0n ? `${lifeSeconds / 86_400n} days` : `${lifeSeconds} s`}; the grant ends then and the Golem dies by delegation expiry unless renewed`,
    `gate          every redemption checks the Golem's phase on the VitalityOracle (golemPhase caveat); the owner revokes at any time (the dashboard, bardo revoke, or the wallet)`,
  ]
  for (const w of plan.warnings) lines.push(`warning       ${w}`)
  return lines
}
