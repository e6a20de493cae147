// A constitution's refusal: the rule, the constitution field that set the bound, the numbers, a sentence
// built from them alone, and whether the owner's constitution makes it start the revocation cascade.
import { formatBps, formatDate, formatUsd } from '../caveats/format.ts'
import { phaseNames } from '../lifecycle/phase.ts'
import type { PolicyRule } from './constitution.ts'

export type PolicyRefusal = {
  readonly rule: PolicyRule | 'constitutionHash' | 'revoked'
  /** The constitution field (or `phase`) whose bound the action broke. */
  readonly field: string
  readonly values: Readonly<Record<string, bigint | number | string>>
  /** `policy.<rule>: <what was broken, with the numbers>`. */
  readonly reason: string
  /** The constitution lists this rule in revokeOn: the violation starts the revocation cascade. */
  readonly revoke: boolean
}

export function policyRefusal(rule: PolicyRefusal['rule'], field: string, values: PolicyRefusal['values'], revoke = false): PolicyRefusal {
  return { rule, field, values, reason: `policy.${rule}: ${wordsOf(rule, values)}`, revoke }
}

function wordsOf(rule: PolicyRefusal['rule'], v: PolicyRefusal['values']): string {
  const usd = (k: string) => formatUsd(BigInt(v[k]!))
  const bps = (k: string) => formatBps(Number(v[k]))
  switch (rule) {
    case 'approvedAsset':
      return `${v.asset} is not an approved asset of the constitution`
    case 'maxDrawdown':
      return `the portfolio (${usd('portfolioUsd')}) is ${bps('drawdownBps')} below its high-water mark ${usd('highWaterMarkUsd')}; past ${bps('limitBps')} no new risk is taken`
    case 'phaseMaxPosition':
      return Number(v.limitBps) === 0
        ? `the Golem is in ${phaseNames[Number(v.phase)]}, where no new position is opened (${v.asset} would be ${usd('positionUsd')})`
        : `${v.asset} would be ${bps('positionBps')} of the portfolio (${usd('positionUsd')} of ${usd('portfolioUsd')}); ${phaseNames[Number(v.phase)]} allows at most ${bps('limitBps')} per position`
    case 'maxConcentration':
      return `${v.asset} would be ${bps('positionBps')} of the portfolio (${usd('positionUsd')} of ${usd('portfolioUsd')}); the constitution allows at most ${bps('limitBps')}`
    case 'maxTransaction':
      return `this action puts ${usd('spendUsd')} at risk; at most ${usd('limitUsd')} per transaction`
    case 'maxSession':
      return `this action puts ${usd('spendUsd')} at risk, ${usd('spentUsd')} already this session; at most ${usd('limitUsd')} per session`
    case 'maxDay':
      return `this action puts ${usd('spendUsd')} at risk, ${usd('spentUsd')} already today; at most ${usd('limitUsd')} per day`
    case 'revoked':
      return `the ${v.rule} violation at ${formatDate(BigInt(v.at!))} started the revocation cascade (the constitution's revokeOn); custody acts no more for this Golem under this constitution`
    case 'constitutionHash':
      return `the constitution hashes to ${v.expected}, but the PolicyCage holds ${v.onChain} for ${v.golem}; the Golem does not start`
  }
}
