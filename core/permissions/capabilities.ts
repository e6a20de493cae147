import { parseStrategyDocument } from './strategyDocument.ts'

import { CAPABILITIES, type Capability } from './capability.ts'
import { UNGRANTABLE } from './ungrantable.ts'
import { HEDGE_RULE, HEDGING_VOCABULARY, NEUTRAL_PHRASES, TRADER_VOCABULARY } from './vocabulary.ts'

export { CAPABILITIES, type Capability } from './capability.ts'

/**
 * The capability words: the names of the capabilities and their present inflections. Tokens are whole
 * words: hyphens and apostrophes join a word ("trade-off" and "lp-token" are single tokens and match
 * nothing). Past tenses ("swapped", "bridged") describe history, not intent, and do not grant.
 */
const CAPABILITY_WORDS: Record<Capability, readonly string[]> = {
  Swap: [
    'swap',
    'swaps',
    'swapping',
    'trade',
    'trades',
    'trading',
    'dca',
    'dcas',
    'dca-ing',
    'dcaing',
    'dollar-cost averaging',
    'dollar cost averaging',
    'dollar-cost average',
    'dollar cost average',
  ],
  ProvideLiquidity: ['liquidity', 'lp', 'lps', 'lping', "lp'ing", 'lp-ing', 'pool', 'pools'],
  VaultManagement: ['vault', 'vaults', 'deposit', 'deposits', 'depositing', 'yield', 'yields'],
  Bridge: ['bridge', 'bridges', 'bridging', 'cross-chain', 'crosschain', 'cross chain'],
  SpawnReplicants: ['replicant', 'replicants', 'sub-agent', 'sub-agents', 'subagent', 'subagents', 'sub agent', 'sub agents'],
  LimitOrders: ['limit order', 'limit orders', 'limit-order', 'limit-orders', 'uniswapx'],
}

/**
 * The only surface forms that grant a capability from prose: the capability words first, then traders'
 * phrases (vocabulary.ts), hedging phrases under Swap. A form is one token or a phrase of tokens separated
 * by spaces.
 */
export const CAPABILITY_LEXICON: Record<Capability, readonly string[]> = {
  Swap: [...CAPABILITY_WORDS.Swap, ...TRADER_VOCABULARY.Swap, ...HEDGING_VOCABULARY],
  ProvideLiquidity: [...CAPABILITY_WORDS.ProvideLiquidity, ...TRADER_VOCABULARY.ProvideLiquidity],
  VaultManagement: [...CAPABILITY_WORDS.VaultManagement, ...TRADER_VOCABULARY.VaultManagement],
  Bridge: [...CAPABILITY_WORDS.Bridge, ...TRADER_VOCABULARY.Bridge],
  SpawnReplicants: [...CAPABILITY_WORDS.SpawnReplicants, ...TRADER_VOCABULARY.SpawnReplicants],
  LimitOrders: [...CAPABILITY_WORDS.LimitOrders, ...TRADER_VOCABULARY.LimitOrders],
}

/** Words that make every capability mention in their clause a refusal ("never bridge", "vaults are forbidden"). */
export const NEGATORS: ReadonlySet<string> = new Set([
  'never',
  'not',
  'no',
  'nor',
  'neither',
  'none',
  'without',
  "don't",
  'dont',
  "doesn't",
  'doesnt',
  "didn't",
  "won't",
  'wont',
  'cannot',
  "can't",
  'cant',
  "mustn't",
  'mustnt',
  "shouldn't",
  'shouldnt',
  "isn't",
  "aren't",
  'avoid',
  'avoids',
  'avoiding',
  'forbid',
  'forbids',
  'forbidden',
  'prohibit',
  'prohibits',
  'prohibited',
  'disallow',
  'disallowed',
  'ban',
  'bans',
  'banned',
  'exclude',
  'excludes',
  'excluded',
  'excluding',
  'refrain',
])

/** "no more than", "never exceed", "not only", "no matter": comparisons, not refusals. */
const NEGATION_EXCEPTIONS: ReadonlySet<string> = new Set([
  'more',
  'less',
  'fewer',
  'later',
  'earlier',
  'longer',
  'greater',
  'higher',
  'lower',
  'exceed',
  'exceeds',
  'exceeding',
  'above',
  'below',
  'over',
  'under',
  'only',
  'matter',
])

/** Words that end a negation's clause: "never bridge but swap daily" grants Swap. */
const CLAUSE_BREAKS: ReadonlySet<string> = new Set(['but', 'however', 'except', 'instead', 'whereas'])

// A word is a run of letters, digits, marks, invisible format characters and underscores, joined by
// internal hyphens or apostrophes. Marks and format characters stay inside the word on purpose: "he\u200Blp"
// is one token, never "he" + "lp".
const WORD = /[\p{L}\p{N}\p{M}\p{Cf}_]+(?:['-][\p{L}\p{N}\p{M}\p{Cf}_]+)*/gu

export function tokenize(text: string): string[] {
  return (text
    .toLowerCase()
    .replace(/[\u2019\u02bc]/g, "'")
    .match(WORD) ?? []) as string[]
}

export type CapabilityMention = { capability: Capability; form: string; line: number; negated: boolean }

/** A phrase naming something no delegation of this compiler carries, asked for in a clause without a negator. */
export type UngrantedMention = { form: string; what: string; rule: string; line: number }

export type ProseAnalysis = {
  /** Mentioned in at least one clause without a negator, and never negated anywhere. */
  granted: Set<Capability>
  /** Mentioned inside a negated clause somewhere (negation wins over any positive mention). */
  negated: Set<Capability>
  /** Both asked for and refused: refused (negation wins), and worth telling the owner. */
  conflicted: Set<Capability>
  mentions: CapabilityMention[]
  /** Asked for and not grantable; each is also in warnings. */
  ungranted: UngrantedMention[]
  /** Lookalike words that were not matched, phrases that cannot be granted, hedges read as Swap. */
  warnings: string[]
}

/** A phrase the reader knows: one that grants a capability, one that cannot be granted, or a modifier that grants nothing. */
type Term =
  | { kind: 'grant'; capability: Capability; form: string; tokens: string[]; note?: string }
  | { kind: 'ungrantable'; form: string; tokens: string[]; what: string; rule: string; instrument: boolean }
  | { kind: 'neutral'; form: string; tokens: string[] }

const HEDGES: ReadonlySet<string> = new Set(HEDGING_VOCABULARY)

/** Longest phrase first, so "margin trading" is read before "trading" and "limit buy" before "buy". */
const TERMS: readonly Term[] = [
  ...CAPABILITIES.flatMap((capability) =>
    CAPABILITY_LEXICON[capability].map(
      (form): Term => ({
        kind: 'grant',
        capability,
        form,
        tokens: form.split(' '),
        ...(HEDGES.has(form) ? { note: HEDGE_RULE } : {}),
      }),
    ),
  ),
  ...UNGRANTABLE.flatMap(({ what, rule, instrument, forms }) =>
    forms.map((form): Term => ({ kind: 'ungrantable', form, tokens: form.split(' '), what, rule, instrument })),
  ),
  ...NEUTRAL_PHRASES.map((form): Term => ({ kind: 'neutral', form, tokens: form.split(' ') })),
].sort((a, b) => b.tokens.length - a.tokens.length)

/**
 * Stands between two words joined by anything but whitespace ("limit-->order", "limit/order"): a
 * multi-word form matches only words separated by whitespace, as a reader would write it.
 */
const JOIN_BREAK = ''

function clauseHasNegator(clause: readonly string[]): boolean {
  const tokens = clause.filter((t) => t !== JOIN_BREAK)
  return tokens.some((t, i) => NEGATORS.has(t) && !NEGATION_EXCEPTIONS.has(tokens[i + 1] ?? ''))
}

function splitClauses(line: string): string[][] {
  const clauses: string[][] = []
  for (const sentence of line.split(/[.!?;]+(?=\s|$)/)) {
    const text = sentence.toLowerCase().replace(/[\u2019\u02bc]/g, "'")
    let current: string[] = []
    let end = -1
    for (const match of text.matchAll(WORD)) {
      const token = match[0]
      if (end >= 0 && /\S/u.test(text.slice(end, match.index))) current.push(JOIN_BREAK)
      end = match.index + token.length
      if (CLAUSE_BREAKS.has(token)) {
        clauses.push(current)
        current = []
        end = -1
      } else current.push(token)
    }
    clauses.push(current)
  }
  return clauses
}

/**
 * The terms of a clause, longest phrase first at each word. A Swap word directly before an instrument
 * ("trade perps", "sell covered calls") is read with it as one ungrantable phrase: trading an instrument
 * is not a spot swap.
 */
function findTerms(tokens: readonly string[]): Term[] {
  const found: { term: Term; end: number }[] = []
  for (let i = 0; i < tokens.length; i++) {
    const term = TERMS.find((t) => t.tokens.every((w, k) => tokens[i + k] === w))
    if (term === undefined) continue
    const before = found.at(-1)
    if (
      term.kind === 'ungrantable' &&
      term.instrument &&
      before?.end === i &&
      before.term.kind === 'grant' &&
      before.term.capability === 'Swap'
    ) {
      const form = `${before.term.form} ${term.form}`
      found[found.length - 1] = { term: { ...term, form, tokens: form.split(' ') }, end: i + term.tokens.length }
    } else found.push({ term, end: i + term.tokens.length })
    i += term.tokens.length - 1
  }
  return found.map((f) => f.term)
}

const LIST_ITEM = /^\s*(?:[-*+]|\d+[.)])\s+/

/**
 * Reads prose (front matter, code, comments and URLs already removed) clause by clause. A clause with a
 * negator refuses every capability it mentions; a line like "Forbidden:" with a negator carries the refusal
 * into the list items under it. One refusal anywhere beats any number of positive mentions: the worst a
 * wrong refusal can do is deny service, a wrong grant could cost the owner money.
 */
export function analyzeProse(prose: string): ProseAnalysis {
  const mentions: CapabilityMention[] = []
  const ungranted: UngrantedMention[] = []
  const warnings: string[] = []
  let negatedList = false
  prose.split('\n').forEach((line, index) => {
    const isItem = LIST_ITEM.test(line)
    if (line.trim() !== '' && !isItem) negatedList = false
    for (const clause of splitClauses(line)) {
      const negated = (isItem && negatedList) || clauseHasNegator(clause)
      for (const term of findTerms(clause)) {
        const line = index + 1
        if (term.kind === 'grant') {
          mentions.push({ capability: term.capability, form: term.form, line, negated })
          if (!negated && term.note !== undefined) warnings.push(`line ${line}: "${term.form}" is read as ${term.capability}: ${term.note}`)
        } else if (term.kind === 'ungrantable' && !negated) {
          ungranted.push({ form: term.form, what: term.what, rule: term.rule, line })
          warnings.push(`line ${line}: "${term.form}" asks for ${term.what}; not granted: ${term.rule}`)
        }
      }
    }
    if (!isItem && /:\s*$/.test(line) && clauseHasNegator(tokenize(line))) negatedList = true
    for (const token of tokenize(line)) {
      const lookalike = lookalikeOf(token)
      if (lookalike !== undefined) {
        warnings.push(`line ${index + 1}: "${token}" looks like "${lookalike}" but contains non-ASCII or invisible characters; ignored`)
      }
    }
  })
  const negated = new Set(mentions.filter((m) => m.negated).map((m) => m.capability))
  const granted = new Set(mentions.filter((m) => !m.negated && !negated.has(m.capability)).map((m) => m.capability))
  const conflicted = new Set(mentions.filter((m) => !m.negated && negated.has(m.capability)).map((m) => m.capability))
  return { granted, negated, conflicted, mentions, ungranted, warnings: [...new Set(warnings)] }
}

// A small confusables fold (Cyrillic and Greek letters that render like Latin ones, plus NFKC for
// full-width forms) used only to warn; matching itself never folds.
const CONFUSABLES: Record<string, string> = {
  а: 'a',
  е: 'e',
  о: 'o',
  р: 'p',
  с: 'c',
  ѕ: 's',
  і: 'i',
  ԁ: 'd',
  у: 'y',
  х: 'x',
  ԝ: 'w',
  ӏ: 'l',
  ο: 'o',
  α: 'a',
  ν: 'v',
  ρ: 'p',
  ι: 'i',
  ɩ: 'l',
}
const ALL_FORMS: ReadonlySet<string> = new Set(TERMS.filter((t) => t.kind === 'grant' && t.tokens.length === 1).map((t) => t.form))

function lookalikeOf(token: string): string | undefined {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the range is all of ASCII on purpose; a lookalike has a character outside it
  if (/^[\x00-\x7f]*$/.test(token)) return undefined
  const folded = [...token.normalize('NFKC')]
    .map((ch) => CONFUSABLES[ch] ?? ch)
    .join('')
    .replace(/[\p{M}\p{Cf}]/gu, '')
  return folded !== token && ALL_FORMS.has(folded) ? folded : undefined
}

/**
 * The capabilities a STRATEGY.md asks for. Front matter `capabilities:` is authoritative when present
 * (prose cannot widen it); otherwise whole words in prose outside code, comments and URLs, minus any
 * capability the prose refuses. Throws StrategyCompileError on malformed front matter.
 */
export function detectCapabilities(text: string): Set<Capability> {
  const doc = parseStrategyDocument(text)
  if (doc.frontMatter.capabilities !== undefined) return new Set(doc.frontMatter.capabilities)
  return analyzeProse(doc.prose).granted
}
