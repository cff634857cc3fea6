import { commonConfig, env, parseConfig } from '@sa/config';
import { edgeConfig } from '@sa/edge';

// The MCP server owns no data and has no database connection: identity comes from the gateway over NATS.
const { databaseUrl: _databaseUrl, dbPoolSize: _dbPoolSize, ...withoutDatabase } = commonConfig;

export const loadMcpConfig = (source: Record<string, string | undefined> = process.env) =>
  parseConfig(
    {
      ...withoutDatabase,
      ...edgeConfig,
      port: env.int('MCP_PORT', 3001, { min: 0, max: 65535 }),
      host: env.str('MCP_HOST', '127.0.0.1'),
      /** Browser origins allowed besides loopback ones, comma-separated; `*` allows any. */
      allowedOrigins: env.str('MCP_ALLOWED_ORIGINS', ''),
      /** Host names the server may be reached by, comma-separated; empty: Host is not checked. */
      allowedHosts: env.str('MCP_ALLOWED_HOSTS', ''),
    },
    source,
  );

export type McpConfig = ReturnType<typeof loadMcpConfig>;
export const MCP_CONFIG = Symbol('MCP_CONFIG');
export const MCP_LOGGER = Symbol('MCP_LOGGER');
