import { commonConfig, parseConfig } from '@sa/config';

export const loadMcpConfig = () => parseConfig({ ...commonConfig });
