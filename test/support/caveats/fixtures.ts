import { getSmartAccountsEnvironment } from '@metamask/smart-accounts-kit'
import { getAddress, zeroAddress, type Address } from 'viem'
import type { Labels } from '../../../core/caveats/format.ts'
import type { BardoDeployment, TokenFeed } from '../../../core/caveats/types.ts'

/** Shared test fixtures: a real kit environment (Base Sepolia's table, no network) and a fake Bardo deployment. */
export const ENV = getSmartAccountsEnvironment(84532)

const a = (n: number): Address => `0x${n.toString(16).padStart(40, '0')}` as Address

export const DEPLOYMENT: BardoDeployment = {
  vitalityOracle: a(0xb0001),
  dreamOracle: a(0xb0002),
  daimonOracle: a(0xb0003),
  enforcers: {
    golemPhase: a(0xe0001),
    mortalityTimeWindow: a(0xe0002),
    dreamMode: a(0xe0003),
    vaultNav: a(0xe0004),
    replicantBudget: a(0xe0005),
    maxSlippage: a(0xe0006),
    dailySpendLimit: a(0xe0007),
    emotionalState: a(0xe0008),
    knowledgeRoyalty: a(0xe0009),
    policyCage: a(0xe000a),
  },
}

export const OWNER: Address = getAddress('0x00000000000000000000000000000000000A11CE')
export const GOLEM: Address = getAddress('0x0000000000000000000000000000000000001234')
export const SESSION: Address = getAddress('0x0000000000000000000000000000000000005E55')
export const REPLICANT: Address = getAddress('0x000000000000000000000000000000000000Beef')
export const USDC: Address = getAddress('0x036CbD53842c5426634e7929541eC2318f3dCF7e')
export const WETH: Address = getAddress('0x4200000000000000000000000000000000000006')
export const ROUTER: Address = getAddress('0x94cC0AaC535CCDB3C01d6787D6413C739ae12bc4')
export const VAULT: Address = getAddress('0x0000000000000000000000000000000000fa0175')
export const FEED_USDC: Address = getAddress('0xd30e2101a97dcbAeBCBC04F14C3f624E67A35165')
export const FEED_ETH: Address = getAddress('0x4aDC67696bA383F43DD60A9e78F2C97Fbbfc7cb1')

export const FEEDS: TokenFeed[] = [
  { token: USDC, decimals: 6, feed: FEED_USDC },
  { token: zeroAddress, decimals: 18, feed: FEED_ETH },
]

export const LABELS: Labels = {
  tokens: { [USDC]: { symbol: 'USDC', decimals: 6 }, [WETH]: { symbol: 'WETH', decimals: 18 } },
  targets: { [ROUTER]: 'the Uniswap router', [VAULT]: 'the USDC vault' },
}

/** 1 Jan 2026 00:00 UTC; 21 Dec 2026 00:00 UTC. */
export const NOW = 1_767_225_600n
export const DEC_21_2026 = 1_797_811_200n
export const DAY = 86_400n
export const USD = (dollars: number): bigint => BigInt(Math.round(dollars * 1e6))
