import { commonConfig, parseConfig } from '@sa/config';
import { webhookSecretKeyConfig } from '@sa/secret-box';

export const loadBotsConfig = (source: Record<string, string | undefined> = process.env) =>
  parseConfig(
    {
      ...commonConfig,
      /**
       * Widget identity secrets are stored sealed with the key of webhook signing secrets
       * (WEBHOOK_SECRET_KEY, required with NODE_ENV=production; otherwise the local key file),
       * read the way the webhook dispatcher reads it.
       */
      secretKey: webhookSecretKeyConfig,
    },
    source,
  );
export type BotsConfig = ReturnType<typeof loadBotsConfig>;
