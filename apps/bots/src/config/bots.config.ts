import { commonConfig, parseConfig } from '@sa/config';

export const loadBotsConfig = () => parseConfig({ ...commonConfig });
export type BotsConfig = ReturnType<typeof loadBotsConfig>;
