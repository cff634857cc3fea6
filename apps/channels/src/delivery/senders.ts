import { Inject, Injectable } from '@nestjs/common';
import type { ChannelKind } from '@sa/contracts';
import { KeptConnections, OutboundPolicy, guardedFetch } from '@sa/net-guard';
import { CHANNELS_CONFIG, ChannelsConfig } from '../config/channels.config';
import { sendMailReply } from '../email/mail-sender';
import type { ProviderConnection, SendContext } from '../providers/provider';
import { WEBHOOK_PROVIDERS } from '../providers/registry';

export const CHANNELS_OUTBOUND_POLICY = Symbol('CHANNELS_OUTBOUND_POLICY');

/**
 * Sends one reply through its connection's provider: the webhook kinds' APIs at their configured
 * base URLs (CHANNELS_*_API_BASE) with every request through the outbound guard, e-mail over the
 * connection's SMTP server (its host checked by the same guard). Errors are the providers'
 * RetryableSendError / PermanentSendError.
 */
@Injectable()
export class Senders {
  private readonly connections = new KeptConnections({ idleMs: 30_000 });

  constructor(
    @Inject(CHANNELS_CONFIG) private readonly config: ChannelsConfig,
    @Inject(CHANNELS_OUTBOUND_POLICY) private readonly policy: OutboundPolicy,
  ) {}

  send(kind: ChannelKind, conn: ProviderConnection, replyTo: Record<string, unknown>, text: string): Promise<{ providerMessageId: string | null }> {
    if (kind === 'email') return sendMailReply(conn, replyTo, text, { policy: this.policy, timeoutMs: this.config.sendTimeoutMs * 3 });
    return WEBHOOK_PROVIDERS[kind].send(conn, replyTo, text, this.context(kind));
  }

  private context(kind: Exclude<ChannelKind, 'email'>): SendContext {
    const baseUrl = { whatsapp: this.config.whatsappApiBase, telegram: this.config.telegramApiBase, slack: this.config.slackApiBase }[kind];
    const policy = { ...this.policy, timeoutMs: this.config.sendTimeoutMs };
    return {
      baseUrl,
      http: async (url, init) => {
        const res = await guardedFetch(url, policy, { method: init.method, headers: init.headers, body: init.body, followRedirects: false, connections: this.connections });
        return { status: res.status, headers: res.headers, body: res.body };
      },
    };
  }
}
