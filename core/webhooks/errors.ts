// Why a webhook notification was refused: the message names the field and the rule, and a refused
// notification wakes no Golem.
import { BardoError } from '../errors.ts'

/** The signature header is missing, malformed, or is not the body's HMAC under the webhook's signing key. */
export class WebhookSignatureError extends BardoError {
  constructor(message: string) {
    super('WEBHOOK_BAD_SIGNATURE', message, { details: { field: 'x-alchemy-signature' } })
  }
}

/** The body is signed but is not a notification this route understands. */
export class WebhookBodyError extends BardoError {
  constructor(
    readonly field: string,
    readonly rule: string,
  ) {
    super('WEBHOOK_BAD_BODY', `${field}: ${rule}`, { details: { field, rule } })
  }
}

/** An input to the webhook's query (an owner, the chain, a variable name) breaks its rule. */
export class WebhookQueryError extends BardoError {
  constructor(
    readonly field: string,
    readonly rule: string,
  ) {
    super('WEBHOOK_BAD_QUERY_INPUT', `${field}: ${rule}`, { details: { field, rule } })
  }
}
