import { commonConfig, env, parseConfig } from '@sa/config';
import { leadsModelConfig } from '../scoring/model-scorer.config';

export const loadLeadsConfig = (source: Record<string, string | undefined> = process.env) => {
  const config = parseConfig(
    {
      ...commonConfig,
      /** A session scoring at least this is a hot lead. */
      hotThreshold: env.int('LEAD_HOT_THRESHOLD', 70, { min: 1, max: 100 }),
      /** A session scoring at least this is a warm lead; without contact details, the least score that makes a lead. */
      warmThreshold: env.int('LEAD_WARM_THRESHOLD', 40, { min: 1, max: 100 }),
      /** Most leads GET /leads returns (spec part 4: at most 500). */
      maxListed: env.int('LEADS_LIST_LIMIT', 500, { min: 1, max: 500 }),
      /** The lead-scoring model: LEADS_MODEL_PROVIDER=rules (default, no model), openai or ollama. */
      ...leadsModelConfig,
    },
    source,
  );
  if (config.warmThreshold > config.hotThreshold) throw new Error(`LEAD_WARM_THRESHOLD (${config.warmThreshold}) must not exceed LEAD_HOT_THRESHOLD (${config.hotThreshold})`);
  return config;
};

export type LeadsConfig = ReturnType<typeof loadLeadsConfig>;
export const LEADS_CONFIG = Symbol('LEADS_CONFIG');
