// Fakes for the API's services: tests and the bench build a complete app with these, no chain needed.
import type { Address } from 'viem'
import { golemHealth, phaseOfName } from '../../core/health/golemHealth.ts'
import { InMemoryStore } from '../../adapters/store/index.ts'
import { vitalSigns } from '../../core/lifecycle/vitalSigns.ts'
import { vitalsOf } from './vitals.ts'
import { StoreCladeService } from './cladeService.ts'
import type {
  ApiConfig,
  ApiDeps,
  Clock,
  GolemChainService,
  GolemHistoryService,
  GolemView,
  GolemRegistry,
  PermissionHealthService,
} from './deps.ts'
import {
  ConfigOperatorRegistry,
  MemoryNonceStore,
  MemoryRateLimitCounterStore,
  MemorySnapTokenStore,
} from '../../test/support/memoryPorts.ts'
import { StoreGolemJournal } from './services/journal.ts'
import { deviceAuthFromStore } from './storeAdapters.ts'

export class ManualClock implements Clock {
  constructor(public ms: number) {}
  now(): number {
    return this.ms
  }
  advance(ms: number): void {
    this.ms += ms
  }
}

export class MemoryGolemRegistry implements GolemRegistry {
  readonly #golems = new Map<string, GolemView>()
  constructor(golems: GolemView[] = []) {
    for (const g of golems) this.put(g)
  }
  put(golem: GolemView): void {
    this.#golems.set(golem.id, golem)
  }
  async getGolem(idOrAddress: string): Promise<GolemView | undefined> {
    const byId = this.#golems.get(idOrAddress)
    if (byId) return byId
    for (const g of this.#golems.values()) if (g.address.toLowerCase() === idOrAddress.toLowerCase()) return g
    return undefined
  }
  async listGolemsByOwner(owner: Address): Promise<GolemView[]> {
    return [...this.#golems.values()].filter((g) => g.owner.toLowerCase() === owner.toLowerCase())
  }
}

/** Health from core/health with fixed facts: 8.2 of 10 USDC left today, 4 days to go -> `low`. */
export function fakeHealthService(clock: Clock): PermissionHealthService {
  return {
    async check(golem) {
      const now = BigInt(Math.floor(clock.now() / 1000))
      const expiresAt = now + 4n * 86_400n + 3600n
      const facts = {
        now,
        disabled: false,
        expiresAt,
        periodAmount: 10_000_000n,
        periodDuration: 86_400n,
        availableInPeriod: 8_200_000n,
        currentPeriodStart: now - 3600n,
        lastRedemptionAt: now - 3600n,
      }
      return golemHealth({ facts, lifecycle: golem.lifecycle, phase: phaseOfName(golem.phase), runwayEndsAt: expiresAt })
    },
  }
}

export const fakeHistoryService: GolemHistoryService = {
  async phaseTransitions(_g, page) {
    const items = [
      {
        from: 'Thriving' as const,
        to: 'Stable' as const,
        survivalScore: 6800,
        kind: 'transition' as const,
        reason: null,
        blockNumber: 120n,
        txHash: `0x${'ab'.repeat(32)}` as const,
        timestamp: 1_750_000_000,
      },
    ]
    return { items: items.slice(0, page.limit), nextCursor: null }
  },
  async redemptions(g, page) {
    const items = [
      {
        delegationHash: `0x${'cd'.repeat(32)}` as const,
        delegator: g.owner,
        redeemer: g.address,
        transfers: [{ token: '0x5FbDB2315678afecb367f032d93F642f64180aa3' as const, amount: 1_000_000n }],
        usd6: 1_000_000n,
        blockNumber: 121n,
        txHash: `0x${'ef'.repeat(32)}` as const,
        timestamp: 1_750_000_100,
      },
    ]
    return { items: items.slice(0, page.limit), nextCursor: null }
  },
  async spendByPeriod(_g, page) {
    const items = [
      {
        source: 'erc20-period',
        asset: '0x5FbDB2315678afecb367f032d93F642f64180aa3' as const,
        periodStart: 1_749_945_600,
        periodEnd: 1_750_032_000,
        amount: 1_800_000n,
        eventCount: 2,
      },
    ]
    return { items: items.slice(0, page.limit), nextCursor: null }
  },
}

export const fakeChainService: GolemChainService = {
  async currentPhase(g) {
    // A view without a profile: the stub's clocks, a month of life left.
    const { change: _change, ...stubbed } = vitalSigns({
      now: 1_750_000_000,
      lifecycle: g.lifecycle,
      phase: phaseOfName(g.phase),
      vitality: g.vitality,
      runwayEndsAt: 1_752_592_000,
      grantEndsAt: 1_752_592_000,
    })
    const vitals = vitalsOf(g, 1_750_000_000) ?? stubbed
    return { registered: g.lifecycle !== 'dead', phase: vitals.phase, survivalScore: 6800, blockNumber: 130n, vitals }
  },
  async currentSpend() {
    return {
      token: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
      periodStart: 1_749_945_600,
      periodSeconds: 86_400,
      spent: 1_800_000n,
      limit: 10_000_000n,
      remaining: 8_200_000n,
      blockNumber: 130n,
    }
  },
}

export function sampleGolem(overrides: Partial<GolemView> = {}): GolemView {
  return {
    id: 'atlas',
    name: 'Atlas',
    address: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
    owner: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
    phase: 'Stable',
    vitality: 0.68,
    lifecycle: 'alive',
    lastHeartbeatAt: 1_749_999_940,
    ...overrides,
  }
}

export const TEST_HMAC_SECRET = new Uint8Array(32).fill(0x42)

export type TestDepsOptions = {
  golems?: GolemView[]
  operators?: Record<string, string>
  config?: Partial<ApiConfig>
  clock?: ManualClock
  overrides?: Partial<ApiDeps>
}

/** A complete ApiDeps over memory stores and fakes; pass `overrides.stores` to share stores between apps. */
export function testApiDeps(o: TestDepsOptions = {}): ApiDeps & { clock: ManualClock; golems: MemoryGolemRegistry } {
  const clock = o.clock ?? new ManualClock(1_750_000_000_000)
  const config: ApiConfig = {
    chainId: 31337,
    allowedOrigins: ['https://bardo.ai', 'http://localhost:3003'],
    trustedProxyHops: 1,
    readApiKeyHashes: [],
    clade: { hmacSecret: TEST_HMAC_SECRET },
    ...o.config,
  }
  return {
    config,
    clock,
    stores: {
      rateLimits: new MemoryRateLimitCounterStore(),
      nonces: new MemoryNonceStore(),
      snapTokens: new MemorySnapTokenStore(),
      deviceAuth: deviceAuthFromStore(new InMemoryStore()),
    },
    golems: new MemoryGolemRegistry(o.golems ?? []),
    health: fakeHealthService(clock),
    history: fakeHistoryService,
    journal: new StoreGolemJournal(new InMemoryStore()),
    chain: fakeChainService,
    operators: new ConfigOperatorRegistry(o.operators ?? {}),
    clade: new StoreCladeService(new InMemoryStore()),
    ...o.overrides,
  } as ApiDeps & { clock: ManualClock; golems: MemoryGolemRegistry }
}
