import { commonConfig, parseConfig } from '@sa/config';

export const loadBookingsConfig = () => parseConfig({ ...commonConfig });
