// Public surface of the strategy compiler (see docs/strategy-compiler.md).
export { CAPABILITIES, CAPABILITY_LEXICON, detectCapabilities, type Capability } from './capabilities.ts'
export { formatUsdc, parseBudget, MAX_DAILY_BUDGET_USDC, USDC_DECIMALS } from './budget.ts'
export {
  capabilityDailyCap,
  compileStrategy,
  DAILY_GAS_CAP_WEI,
  DEFAULT_RUNWAY_DAYS,
  GUARDRAIL_MAX_DAILY_CAP,
  GUARDRAIL_MAX_RUNWAY_DAYS,
  LIQUIDITY_REMOVAL_RULE,
  PERIOD_SECONDS,
  type ActionCallSet,
  type CompileStrategyParameters,
  type PermissionPlan,
  type SpenderApproval,
} from './compileStrategy.ts'
export {
  EXPIRY_ADJUSTMENT_ALLOWED,
  JUSTIFICATION_MAX_CHARS,
  parseErc7715Request,
  PERMISSION_ADJUSTMENT_ALLOWED,
  runwayRequestsSchema,
  runwayTermsFromErc7715Request,
  toErc7715Request,
  toKitPermissionRequests,
  type RunwayPermissionRequests,
  type RunwayTerms,
  WALLET_PERIOD_PRESETS,
  type WalletPermissionRequest,
  type WalletPermissionResponse,
  type WalletRule,
} from './erc7715.ts'
export { StrategyCompileError, StrategyGuardrailError } from './errors.ts'
export {
  GrantedPermissionError,
  readGrantedRunway,
  type GrantedPeriodicPermission,
  type GrantedRunway,
  type ReadGrantedRunwayParameters,
} from './grantedPermission.ts'
export {
  buildPlanGrant,
  dailyLimitPerSpender,
  DEFAULT_MAX_SLIPPAGE_BPS,
  type BuildPlanGrantParameters,
  type PlanUsdCaps,
  type TokenDecimals,
} from './planGrant.ts'
export {
  localRegistry,
  publicRegistry,
  PUBLIC_ADDRESSES,
  SUPPORTED_CHAIN_IDS,
  type BridgeDestination,
  type ContractCall,
  type LocalAssetAddresses,
  type ProtocolFunction,
  type ProtocolRegistry,
  type TokenApproval,
} from './protocolRegistry.ts'
export { SELECTORS } from './selectors.ts'
export {
  BRIDGE_PIN_RULE,
  bridgeLayout,
  CALL_LAYOUTS,
  CCTP_PINNED_WORDS,
  layoutOfSelector,
  TUPLE_OFFSET_WORD,
  type CallLayout,
  type FixedWord,
  type ReceiverWord,
} from './callLayouts.ts'
export * from './localOwnerWallet.ts'
