import type { CallerContext } from '@sa/contracts';

/**
 * The caller context of the service's own calls for a workspace (a run's chat turns, the bot's
 * description, the gate's e-mail): no token, no scopes, every bot. A run's turns are playground
 * turns, which chat stores and counts nowhere, so no entitlement is read from it.
 */
export function serviceContext(tenantId: string, requestId: string): CallerContext {
  return {
    tenantId,
    tokenId: null,
    scopes: [],
    botIds: null,
    requestId: requestId.slice(0, 128),
    entitlements: { plan: 'growth', botSlots: 0, tierSlots: { starter: 0, growth: 0, scale: 0 }, messagesPerMonth: 0, pagesPerBot: 0, widgetMessagesPerBotPerMonth: 0, webhooks: false },
  };
}
