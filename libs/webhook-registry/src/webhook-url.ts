import { OutboundPolicy, Resolver, checkUrl, classifyAddress, parseHostAddress } from '@sa/net-guard';

/** Longest endpoint URL accepted. */
export const MAX_WEBHOOK_URL_LENGTH = 2048;

export type WebhookUrlCheck = { ok: true; url: string } | { ok: false; reason: string };

function allowlisted(address: string, policy: Pick<OutboundPolicy, 'allowCidrs'>): boolean {
  const ip = parseHostAddress(address);
  if (ip === null || policy.allowCidrs.length === 0) return false;
  // An address only an allowlist lets through: blocked under the default policy.
  return !classifyAddress(ip, { allowCidrs: policy.allowCidrs }).blocked && classifyAddress(ip, { allowCidrs: [] }).blocked;
}

/**
 * Checks an endpoint at registration (spec part 6: public HTTPS only; private and internal
 * addresses rejected). The SSRF guard of @sa/net-guard decides which addresses are refused, on
 * every address the name resolves to. Plain http is accepted only for an endpoint whose every
 * address is in OUTBOUND_ALLOW_CIDRS, the operator's own allowlist (local receivers in tests).
 * Delivery checks again, on the address actually connected.
 */
export async function checkWebhookUrl(
  input: string,
  policy: Pick<OutboundPolicy, 'allowedPorts' | 'allowCidrs'>,
  opts: { resolver?: Resolver } = {},
): Promise<WebhookUrlCheck> {
  if (input.length > MAX_WEBHOOK_URL_LENGTH) return { ok: false, reason: `the URL is longer than ${MAX_WEBHOOK_URL_LENGTH} characters` };
  const checked = await checkUrl(input, policy, opts);
  if (!checked.ok) return { ok: false, reason: checked.reason };
  // An empty fragment ("…/hook#") leaves url.hash empty but is still kept in href.
  if (checked.url.hash !== '' || checked.url.href.includes('#')) return { ok: false, reason: 'the URL must not have a #fragment' };
  // Normalising percent-encodes non-ASCII characters and can make the URL much longer than typed.
  if (checked.url.href.length > MAX_WEBHOOK_URL_LENGTH) {
    return { ok: false, reason: `the URL is longer than ${MAX_WEBHOOK_URL_LENGTH} characters once normalised (${checked.url.href.length})` };
  }
  if (checked.url.protocol !== 'https:' && !checked.addresses.every((a) => allowlisted(a, policy))) {
    return { ok: false, reason: 'webhook endpoints must use https' };
  }
  return { ok: true, url: checked.url.href };
}
