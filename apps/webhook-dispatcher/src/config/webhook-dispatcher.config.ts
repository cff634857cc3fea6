import { commonConfig, parseConfig } from '@sa/config';

export const loadWebhookDispatcherConfig = () => parseConfig({ ...commonConfig });
