import { commonConfig, parseConfig } from '@sa/config';

export const loadChatConfig = () => parseConfig({ ...commonConfig });
