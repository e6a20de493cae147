export { AlchemySigningKey } from './alchemySignature.ts'
export {
  alchemyNotificationSchema,
  checkNotificationAge,
  MAX_LOGS_PER_FIELD,
  MAX_NOTIFICATION_AGE_MS,
  parseAlchemyNotification,
  type AlchemyLog,
  type AlchemyNotification,
} from './alchemyNotification.ts'
export { decodeCustodySignals, type CustodySignal, type DecodedSignals } from './custodySignals.ts'
export {
  ALCHEMY_WEBHOOK_PATH,
  CUSTODY_LOG_FIELDS,
  custodyLogFilters,
  type CustodyContracts,
  custodyContractsOfDeployment,
  custodyWebhookQuery,
  NONCE_EVENTS,
  DELEGATION_EVENTS,
  NO_OWNER_TOPIC,
  ORACLE_EVENTS,
  ownerTopic,
  REDEMPTION_EVENTS,
  watchedOwnersVariable,
  type CustodyLogField,
  type CustodyLogFilter,
} from './custodyQuery.ts'
export { WebhookBodyError, WebhookQueryError, WebhookSignatureError } from './errors.ts'
export { golemLookups, planWake, type GolemLookups, type WakeDecision } from './wakePlan.ts'
