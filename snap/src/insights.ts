// Transaction and signature insights: recognise Bardo (DelegationManager redemptions and revocations,
// VitalityOracle calls, EIP-712 Delegations whose caveats use Bardo enforcers) and say in words what
// signing does. The ABIs come from @metamask/delegation-abis and the generated Bardo artifacts; the
// caveat wording is core/caveats' summarizeDelegation, bundled into the Snap.
import { DelegationManager, HybridDeleGator } from '@metamask/delegation-abis'
import { decodeDelegations } from '@metamask/smart-accounts-kit/utils'
import { decodeFunctionData, getAddress, hexToString, isHex, type Address, type Hex } from 'viem'
import { VitalityOracleAbi } from '../../contracts/artifacts/index.ts'
import { summarizeChain } from '../../core/caveats/summarizeDelegation.ts'
import { phaseNames } from '../../core/lifecycle/phase.ts'
import type { SnapDeployment } from './types.ts'

/** `critical` is MetaMask's own red flag; `warning` and `info` are shown in the panel. */
export type InsightSeverity = 'critical' | 'warning' | 'info'
export type Insight = { severity: InsightSeverity; title: string; lines: string[] }

const same = (a: string | undefined, b: string | undefined) => a !== undefined && b !== undefined && a.toLowerCase() === b.toLowerCase()
const short = (a: string) => `${a.slice(0, 6)}…${a.slice(-4)}`

type DelegationLike = {
  delegate: Address
  delegator: Address
  authority: Hex
  caveats: { enforcer: Address; terms: Hex; args: Hex }[]
  salt: bigint | string | number
}

function bardoEnforcerNames(d: SnapDeployment, caveats: readonly { enforcer: string }[]): string[] {
  return caveats.flatMap((c) =>
    Object.entries(d.enforcers)
      .filter(([, a]) => same(a, c.enforcer))
      .map(([name]) => name),
  )
}

function summarize(d: SnapDeployment, chain: readonly DelegationLike[]): string {
  try {
    return summarizeChain(
      chain.map((x) => ({ caveats: x.caveats, delegator: x.delegator })),
      { deployment: d, environment: d.environment, tokens: d.tokens },
    )
  } catch (error) {
    // A caveat the decoder refuses is itself news: say so rather than hide the insight.
    return `caveats could not be read (${error instanceof Error ? error.message.split('\n')[0] : 'unknown error'})`
  }
}

function describeDelegationManagerCall(d: SnapDeployment, data: Hex, originKnown: boolean): Insight | null {
  let call
  try {
    call = decodeFunctionData({ abi: DelegationManager, data })
  } catch {
    return null
  }
  if (call.functionName === 'disableDelegation') {
    const delegation = call.args[0] as unknown as DelegationLike
    const bardo = bardoEnforcerNames(d, delegation.caveats).length > 0
    return {
      severity: 'info',
      title: bardo ? 'Revokes a Bardo delegation' : 'Revokes a delegation',
      lines: [
        `Delegate ${short(delegation.delegate)} loses this authority as soon as the transaction is mined.`,
        `It could: ${summarize(d, [delegation])}.`,
      ],
    }
  }
  if (call.functionName === 'redeemDelegations') {
    const [contexts] = call.args as unknown as [readonly Hex[]]
    const lines: string[] = []
    let bardo = false
    for (const context of contexts) {
      const chain = decodeDelegations(context) as unknown as DelegationLike[]
      bardo ||= chain.some((x) => bardoEnforcerNames(d, x.caveats).length > 0)
      lines.push(`${short(chain[0]?.delegate ?? '0x')} spends from ${short(chain.at(-1)?.delegator ?? '0x')}: ${summarize(d, chain)}.`)
    }
    if (!bardo) return null
    return {
      severity: originKnown ? 'warning' : 'critical',
      title: `Redeems ${contexts.length} Bardo delegation${contexts.length === 1 ? '' : 's'}`,
      lines: originKnown
        ? lines
        : [...lines, 'A site that is not the Bardo Portal asks you to send this: a Golem redeems its own runway, an owner never needs to.'],
    }
  }
  return null
}

function describeVitalityOracleCall(data: Hex, originKnown: boolean): Insight | null {
  let call
  try {
    call = decodeFunctionData({ abi: VitalityOracleAbi, data })
  } catch {
    return null
  }
  const owned = (title: string, lines: string[], severity: InsightSeverity): Insight => ({
    severity: originKnown ? severity : 'critical',
    title,
    lines: originKnown ? lines : [...lines, 'A site that is not the Bardo Portal asks you to send this owner-only VitalityOracle call.'],
  })
  switch (call.functionName) {
    case 'registerGolem':
      return owned(
        'Registers a Golem with the VitalityOracle',
        [`Golem ${short(call.args[0])} starts life in Thriving; its phase-gated delegations begin to work.`],
        'info',
      )
    case 'deregisterGolem':
      return owned(
        'Deregisters a Golem',
        [`Golem ${short(call.args[0])} leaves the VitalityOracle: every phase-gated delegation to it stops working at once.`],
        'warning',
      )
    case 'resetPhase':
      return owned(
        "Resets a Golem's phase (audited)",
        [
          `Golem ${short(call.args[0])} goes back to ${phaseNames[call.args[1]] ?? `phase ${call.args[1]}`}.`,
          `Reason recorded on-chain: "${call.args[2]}".`,
        ],
        'warning',
      )
    case 'rotateGolemKey':
      return owned(
        "Rotates a Golem's key",
        [`The Golem's identity moves from ${short(call.args[0])} to ${short(call.args[1])}; the old key can no longer report its phase.`],
        'warning',
      )
    case 'updatePhase':
      return {
        severity: 'info',
        title: 'A Golem reports its phase',
        lines: [`New phase: ${phaseNames[call.args[0]] ?? call.args[0]}, survival score ${Number(call.args[1]) / 100}%.`],
      }
    case 'transferOwnership':
      return {
        severity: 'critical',
        title: 'Transfers ownership of the VitalityOracle',
        lines: [`${short(call.args[0])} would control registration, resets and deregistration of every Golem.`],
      }
    default:
      return null
  }
}

/** One level of the owner's smart account (`execute((target, value, callData))`) is looked through. */
function innerCall(to: string, data: Hex): { to: string; data: Hex } {
  try {
    const call = decodeFunctionData({ abi: HybridDeleGator, data })
    if (call.functionName === 'execute' && call.args.length === 1) {
      const execution = call.args[0] as { target: Address; callData: Hex }
      return { to: execution.target, data: execution.callData }
    }
  } catch {
    // Not a DeleGator call: the transaction is read as it is.
  }
  return { to, data }
}

export function describeTransaction(p: {
  to: string | undefined
  data: string | undefined
  chainId: string
  origin: string | undefined
  deployment: SnapDeployment | null
  allowedOrigins: readonly string[]
}): Insight | null {
  const d = p.deployment
  if (!d || p.chainId !== `eip155:${d.chainId}` || !p.to || !p.data || !isHex(p.data) || p.data.length < 10) return null
  const originKnown = p.origin !== undefined && p.allowedOrigins.includes(p.origin)
  const call = innerCall(p.to, p.data)
  if (same(call.to, d.environment.DelegationManager)) return describeDelegationManagerCall(d, call.data, originKnown)
  if (same(call.to, d.vitalityOracle)) return describeVitalityOracleCall(call.data, originKnown)
  return null
}

type TypedData = {
  domain?: { name?: string; chainId?: number | string; verifyingContract?: string }
  primaryType?: string
  message?: Record<string, unknown>
}

function parseTypedData(data: unknown): TypedData | null {
  if (typeof data === 'string') {
    try {
      return JSON.parse(data) as TypedData
    } catch {
      return null
    }
  }
  return data !== null && typeof data === 'object' && !Array.isArray(data) ? (data as TypedData) : null
}

const PAIRING_TEXT = 'Bardo Snap pairing'

export function describeSignature(p: {
  signatureMethod: string
  data: unknown
  origin: string | undefined
  deployment: SnapDeployment | null
  allowedOrigins: readonly string[]
}): Insight | null {
  const originKnown = p.origin !== undefined && p.allowedOrigins.includes(p.origin)
  const stranger = `${p.origin ?? 'An unknown site'} is not the Bardo Portal.`
  if (p.signatureMethod === 'personal_sign' && typeof p.data === 'string') {
    const text = isHex(p.data) ? hexToString(p.data) : p.data
    if (!text.startsWith(PAIRING_TEXT)) return null
    return originKnown
      ? {
          severity: 'info',
          title: 'Pairs the Bardo Snap',
          lines: ["Lets this Snap read your Golems' status. It moves no funds and grants nothing on-chain."],
        }
      : {
          severity: 'critical',
          title: 'Suspicious Bardo pairing request',
          lines: [stranger, "Whoever holds this signature can read your Golems' status. Pair only from the Bardo Portal."],
        }
  }
  if (p.signatureMethod !== 'eth_signTypedData_v4' && p.signatureMethod !== 'eth_signTypedData_v3') return null
  const typed = parseTypedData(p.data)
  if (!typed) return null
  const domainName = typed.domain?.name ?? ''
  const d = p.deployment
  if (typed.primaryType === 'Delegation' && domainName === 'DelegationManager' && d && typed.message) {
    const m = typed.message as Partial<DelegationLike>
    const caveats = (Array.isArray(m.caveats) ? m.caveats : []).map((c) => ({
      enforcer: getAddress(String(c.enforcer)),
      terms: String(c.terms) as Hex,
      args: '0x' as Hex,
    }))
    const names = bardoEnforcerNames(d, caveats)
    if (names.length === 0) return null
    const delegation: DelegationLike = {
      delegate: getAddress(String(m.delegate)),
      delegator: getAddress(String(m.delegator)),
      authority: String(m.authority) as Hex,
      caveats,
      salt: String(m.salt ?? '0'),
    }
    const wrongChain = typed.domain?.chainId !== undefined && Number(typed.domain.chainId) !== d.chainId
    const lines = [
      `Delegate ${short(delegation.delegate)} may: ${summarize(d, [delegation])}.`,
      `Bardo caveats: ${[...new Set(names)].join(', ')}.`,
    ]
    if (wrongChain) lines.push(`Signed for chain ${typed.domain?.chainId}, not the Bardo deployment's chain ${d.chainId}.`)
    if (!originKnown)
      return {
        severity: 'critical',
        title: 'Unknown site asks for a Bardo delegation',
        lines: [stranger, ...lines, "Sign a Golem's authority only in the Bardo Portal."],
      }
    return { severity: wrongChain ? 'critical' : 'warning', title: 'Grants a Golem a Bardo delegation', lines }
  }
  if (/^bardo/i.test(domainName)) {
    return originKnown
      ? {
          severity: 'warning',
          title: 'Unrecognised Bardo signature',
          lines: [`Domain "${domainName}", type ${typed.primaryType ?? 'unknown'}: verify the origin before signing.`],
        }
      : {
          severity: 'critical',
          title: 'Unknown site asks for a Bardo signature',
          lines: [stranger, `Domain "${domainName}", type ${typed.primaryType ?? 'unknown'}.`],
        }
  }
  return null
}
