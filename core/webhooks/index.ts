export { AlchemySigningKey } from './alchemySignature.ts'
export {
  alchemyNotificationSchema,
  checkNotificationAge,
  MAX_NOTIFICATION_AGE_MS,
  parseAlchemyNotification,
  type AlchemyLog,
  type AlchemyNotification,
} from './alchemyNotification.ts'
export { decodeCustodySignals, type CustodyContracts, type CustodySignal, type DecodedSignals } from './custodySignals.ts'
export { ALCHEMY_WEBHOOK_PATH, custodyWebhookQuery } from './custodyQuery.ts'
export { WebhookBodyError, WebhookSignatureError } from './errors.ts'
export { golemLookups, planWake, type GolemLookups, type WakeDecision } from './wakePlan.ts'
