import type { WebhookChannelKind } from '@sa/contracts';
import type { WebhookProvider } from './provider';
import { slackProvider } from './slack';
import { telegramProvider } from './telegram';
import { whatsappProvider } from './whatsapp';

/** The adapter of each webhook kind. */
export const WEBHOOK_PROVIDERS: Record<WebhookChannelKind, WebhookProvider> = {
  whatsapp: whatsappProvider,
  telegram: telegramProvider,
  slack: slackProvider,
};
