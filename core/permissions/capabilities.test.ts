import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { analyzeProse, CAPABILITIES, CAPABILITY_LEXICON, detectCapabilities, NEGATORS, tokenize, type Capability } from './capabilities.ts'
import { StrategyCompileError } from './errors.ts'
import { parseStrategyDocument } from './strategyDocument.ts'

const granted = (text: string) => [...detectCapabilities(text)].sort()

describe('tokenize', () => {
  it('keeps hyphenated and apostrophised words whole and lower-cases them', () => {
    expect(tokenize("Trade-off, LP-token, don’t LP'ing, cross-chain")).toEqual(['trade-off', 'lp-token', "don't", "lp'ing", 'cross-chain'])
  })
  it('keeps invisible and combining characters inside the word', () => {
    expect(tokenize('he\u200Blp s\u0301wap')).toEqual(['he\u200Blp', 's\u0301wap'])
  })
})

describe('detectCapabilities: whole words only', () => {
  it.each([
    ['help', []],
    ['alpha', []],
    ['helpful', []],
    ['LP', ['ProvideLiquidity']],
    ['LPs', ['ProvideLiquidity']],
    ['swapped', []],
    ['swapping', ['Swap']],
    ['swaps', ['Swap']],
    ['trade-off', []],
    ['trader', []],
    ['pooling', []],
    ['pool', ['ProvideLiquidity']],
    ['vaulted', []],
    ['yield', ['VaultManagement']],
    ['cross chain', ['Bridge']],
    ['cross-chain', ['Bridge']],
    ['crosschain', ['Bridge']],
    ['bridged', []],
    ['sub-agents', ['SpawnReplicants']],
    ['sub agent', ['SpawnReplicants']],
    ['replicant', ['SpawnReplicants']],
    ['limit order', ['LimitOrders']],
    ['limit', []],
    ['order', []],
    ['UniswapX', ['LimitOrders']],
    ['uniswap', []],
    ['dollar-cost averaging', ['Swap']],
    ['dollar cost average', ['Swap']],
    ['DCA', ['Swap']],
    ['dcaf', []],
  ] as const)('%s -> %j', (text, expected) => {
    expect(granted(text)).toEqual([...expected].sort())
  })
})

describe('detectCapabilities: negation', () => {
  it.each([
    ['never bridge', []],
    ['I will never bridge', []],
    ['no liquidity', []],
    ['do not use vaults', []],
    ['don’t trade', []],
    ['bridging is forbidden', []],
    ['vaults are not allowed', []],
    ['no bridging, vaults or LP', []],
    ['never bridge but swap daily', ['Swap']],
    ['never bridge. swap daily', ['Swap']],
    ['swap; never bridge', ['Swap']],
    ['no more than 3 swaps a day', ['Swap']],
    ['never exceed $50 per swap', ['Swap']],
    ['not only swap but also LP', ['ProvideLiquidity', 'Swap']],
    ['Avoid:\n- bridges\n- vaults\n\nswap', ['Swap']],
    ['Allowed:\n- swap\nNever:\n- bridge', ['Swap']],
  ] as const)('%j -> %j', (text, expected) => {
    expect(granted(text)).toEqual([...expected].sort())
  })

  it('a refusal anywhere beats a positive mention elsewhere', () => {
    const a = analyzeProse('Bridge to Arbitrum weekly.\nNever bridge more than once.')
    expect([...a.granted]).toEqual([])
    expect([...a.conflicted]).toEqual(['Bridge'])
  })
})

describe('detectCapabilities: front matter', () => {
  it('is authoritative: prose cannot add capabilities', () => {
    expect(granted('---\ncapabilities: [swap]\n---\nprovide liquidity and bridge')).toEqual(['Swap'])
  })
  it('accepts block lists, aliases and comments', () => {
    const text = '---\ncapabilities:\n  - swap\n  - vault-management # yield\n  - "lp"\n---\n'
    expect(granted(text)).toEqual(['ProvideLiquidity', 'Swap', 'VaultManagement'])
  })
  it.each([
    ['unknown capability', '---\ncapabilities: [everything]\n---\n', 'capabilities'],
    ['duplicate key', '---\nbudget: 5\nbudget: 6\n---\n', 'budget'],
    ['unclosed', '---\ncapabilities: [swap]\nswap daily', 'frontMatter'],
    ['not key: value', '---\njust words\n---\n', 'frontMatter'],
    ['runway_days not a number', '---\nrunway_days: thirty\n---\n', 'runway_days'],
    ['override not boolean', '---\noverride: 1\n---\n', 'override'],
  ])('refuses %s', (_name, text, field) => {
    try {
      detectCapabilities(text)
      expect.unreachable()
    } catch (e) {
      expect(e).toBeInstanceOf(StrategyCompileError)
      expect((e as StrategyCompileError).field).toBe(field)
    }
  })
})

describe('parseStrategyDocument', () => {
  it('blanks code, comments and URLs but keeps line numbers', () => {
    const doc = parseStrategyDocument('---\nname: x\n---\nswap `bridge`\n<!-- vault -->\nhttps://lp.example/pool\n```\nliquidity\n```\nend')
    expect(doc.prose.split('\n')).toHaveLength(10)
    expect(tokenize(doc.prose).filter((t) => !/^_+$/.test(t))).toEqual(['swap', 'end'])
  })
  it('finds inline budgets anywhere in a line and hidden ones in code', () => {
    const doc = parseStrategyDocument('Swap. **Budget:** $5/day.\n`budget: 9`\n<!-- budget: 1 -->')
    expect(doc.inlineBudgets).toEqual([{ raw: '$5/day', where: 'line 1' }])
    expect(doc.hiddenBudgets.map((b) => b.raw).sort()).toEqual(['1 -->', '9'])
  })
})

// ---- properties ----

const W = '[\\p{L}\\p{N}\\p{M}\\p{Cf}_]'
/** Independent oracle: does `form` occur in `text` as a whole word (case-insensitive)? */
function occursAsWholeWord(text: string, form: string): boolean {
  const body = form
    .split(' ')
    .map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/'/g, "['\u2019\u02bc]"))
    .join('\\s+')
  return new RegExp(`(?<!${W}|${W}['\u2019\u02bc-])${body}(?!['\u2019\u02bc-]?${W})`, 'iu').test(text)
}

const ALL_FORMS = CAPABILITIES.flatMap((c) => CAPABILITY_LEXICON[c])
const NEAR_MISSES = [
  'help',
  'alpha',
  'helpful',
  'swapped',
  'trade-off',
  'lp-token',
  'vaulted',
  'bridged',
  'pooled',
  'limit',
  'order',
  'cross',
  'chain',
  'sub',
  'agent',
  'dollar',
  'cost',
  'h\u0435lp',
  '\u0455wap',
  'ｓｗａｐ',
  's\u200Bwap',
  'LPx',
  'xlp',
  'liquidityy',
]
const PUNCT = [
  ' ',
  ' ',
  ' ',
  '\n',
  '. ',
  ', ',
  '; ',
  '-',
  "'",
  '’',
  '`',
  '/',
  ':',
  '\n- ',
  '!',
  '?',
  '(',
  ')',
  '\u200B',
  '```\n',
  '<!--',
  '-->',
  'https://x.org/',
]
const piece = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...ALL_FORMS, ...ALL_FORMS.map((f) => f.toUpperCase())) },
  { weight: 3, arbitrary: fc.constantFrom(...NEAR_MISSES) },
  { weight: 2, arbitrary: fc.constantFrom(...NEGATORS, 'but', 'more', 'only') },
  { weight: 4, arbitrary: fc.constantFrom(...PUNCT) },
  { weight: 2, arbitrary: fc.string({ maxLength: 6 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 4 }) },
)
const prose = fc.array(piece, { maxLength: 40 }).map((parts) => parts.join(''))

describe('properties', () => {
  it('a granted capability always has one of its forms in the text as a whole word', () => {
    fc.assert(
      fc.property(prose, (text) => {
        let caps: Set<Capability>
        try {
          caps = detectCapabilities(text)
        } catch (e) {
          if (e instanceof StrategyCompileError) return // malformed front matter grants nothing
          throw e
        }
        for (const c of caps) {
          expect(
            CAPABILITY_LEXICON[c].some((f) => occursAsWholeWord(text, f)),
            `${c} in ${JSON.stringify(text)}`,
          ).toBe(true)
        }
      }),
      { numRuns: Number(process.env['PROPERTY_RUNS'] ?? 3000) },
    )
  })

  it('appending "Never <form>." refuses that capability whatever came before', () => {
    fc.assert(
      fc.property(prose, fc.constantFrom(...CAPABILITIES), (text, c) => {
        const form = CAPABILITY_LEXICON[c][0] ?? ''
        const safe = text.replace(/^---/, '').replace(/```|~~~|<!--|`/g, ' ')
        expect(detectCapabilities(`${safe}\n\nNever ${form}.`).has(c)).toBe(false)
      }),
      { numRuns: 1000 },
    )
  })

  it('front matter capabilities are exactly the grant, whatever the prose says', () => {
    const names: Record<Capability, string> = {
      Swap: 'swap',
      ProvideLiquidity: 'provide_liquidity',
      VaultManagement: 'vault',
      Bridge: 'bridge',
      SpawnReplicants: 'spawn_replicants',
      LimitOrders: 'limit_orders',
    }
    fc.assert(
      fc.property(fc.subarray([...CAPABILITIES]), prose, (declared, text) => {
        const doc = `---\ncapabilities: [${declared.map((c) => names[c]).join(', ')}]\n---\n${text}`
        expect([...detectCapabilities(doc)].sort()).toEqual([...declared].sort())
      }),
      { numRuns: 1000 },
    )
  })
})

describe('detectCapabilities: multi-word forms', () => {
  it.each(['limit-->order', 'limit/order', 'limit:order', 'limit(order'])(
    '%s grants nothing: the words are not separated by whitespace',
    (text) => {
      expect([...detectCapabilities(text)]).toEqual([])
    },
  )

  it('still grants a form across several spaces, and the hyphenated form', () => {
    expect([...detectCapabilities('a limit   order')]).toEqual(['LimitOrders'])
    expect([...detectCapabilities('a limit-order')]).toEqual(['LimitOrders'])
  })
})
