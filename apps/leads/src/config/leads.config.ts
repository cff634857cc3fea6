import { commonConfig, parseConfig } from '@sa/config';

export const loadLeadsConfig = () => parseConfig({ ...commonConfig });
