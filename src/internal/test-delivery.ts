/**
 * Deliveries the SDK's own tools send to a receiver (`acme-identity check-receiver`) say so in a
 * field of their signed body, so that an identity inbox can answer them without storing them: a
 * receiver check then leaves nothing in the dead-letter list operators alert on. Only someone
 * holding the webhook secret can sign one; the service itself never sends the field.
 */

/** The body field that names the tool that sent a test delivery. */
export const TEST_DELIVERY_FIELD = 'acme_identity_test';

/** The tool a verified event's payload says sent it, when it is a test delivery. */
export function testDeliverySource(payload: unknown): string | undefined {
  if (typeof payload !== 'object' || payload === null) return undefined;
  const source = (payload as Record<string, unknown>)[TEST_DELIVERY_FIELD];
  return typeof source === 'string' && source !== '' ? source.slice(0, 32) : undefined;
}
