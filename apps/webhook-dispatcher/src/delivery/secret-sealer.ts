import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { SecretBox, WebhookSecretKey, describeSecretKey, sealPlaintextSecrets } from '@sa/webhook-registry';
import { DISPATCHER_CONFIG, DISPATCHER_LOGGER, WebhookDispatcherConfig } from '../config/webhook-dispatcher.config';
import { SECRET_BOX } from './delivery-engine';

/**
 * At start: says which key encrypts signing secrets (never the key), and encrypts the secrets
 * still stored as issued by a version without encryption at rest. Their values do not change, so
 * receivers keep verifying with the secrets they hold. A failure is logged and does not stop the
 * dispatcher (such secrets still sign); the next start tries again.
 */
@Injectable()
export class SecretSealer implements OnApplicationBootstrap {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    @Inject(SECRET_BOX) private readonly secrets: SecretBox,
    @Inject(DISPATCHER_CONFIG) private readonly config: WebhookDispatcherConfig,
    @Inject(DISPATCHER_LOGGER) private readonly logger: Logger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const key: WebhookSecretKey = this.config.secretKey;
    this.logger.info({ key_source: key.source.kind, ...(key.source.kind === 'file' ? { key_file: key.source.path } : {}) }, describeSecretKey(key));
    try {
      const sealed = await sealPlaintextSecrets(this.ds, this.secrets);
      if (sealed > 0) this.logger.info({ count: sealed }, 'encrypted webhook signing secrets that were stored as issued');
    } catch (err) {
      this.logger.error({ err }, 'could not encrypt the webhook signing secrets stored as issued; will try again at the next start');
    }
  }
}
