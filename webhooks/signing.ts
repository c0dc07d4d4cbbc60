/**
 * Signatures of webhook deliveries, both made with the tenant's API secret:
 * - FastComments': `X-FastComments-Signature: sha256=<hex HMAC-SHA256(secret, timestamp + "." + body)>`;
 * - Standard Webhooks': `webhook-signature: v1,<base64 HMAC-SHA256(key, id + "." + timestamp + "." + body)>`,
 *   where the key is the bytes of the API secret. A Standard Webhooks library takes that key as
 *   `whsec_` followed by its base64 (`standardWebhooksSecret`), or as the raw secret.
 */
import { createHmac } from 'node:crypto';

/** The signature header values of one delivery attempt. */
export interface WebhookSignatures {
  /** `sha256=<hex>` for `X-FastComments-Signature`. */
  readonly fastComments: string;
  /** `v1,<base64>` for `webhook-signature`. */
  readonly standard: string;
}

/** Signs a delivery: `id` is the event's id (`webhook-id`), `timestamp` Unix seconds. */
export function signWebhook(apiSecret: string, id: string, timestamp: number, body: string): WebhookSignatures {
  const fastComments = createHmac('sha256', apiSecret).update(`${timestamp}.${body}`).digest('hex');
  const standard = createHmac('sha256', Buffer.from(apiSecret, 'utf8')).update(`${id}.${timestamp}.${body}`).digest('base64');
  return { fastComments: `sha256=${fastComments}`, standard: `v1,${standard}` };
}

/** The secret a Standard Webhooks library is configured with for a tenant: `whsec_` + base64 of the API secret. */
export function standardWebhooksSecret(apiSecret: string): string {
  return `whsec_${Buffer.from(apiSecret, 'utf8').toString('base64')}`;
}
