import { commonConfig, parseConfig } from '@sa/config';

export const loadKnowledgeConfig = () => parseConfig({ ...commonConfig });
