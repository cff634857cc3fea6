import { commonConfig, env, parseConfig } from '@sa/config';
import { edgeConfig } from '@sa/edge';

// The MCP server owns no data and has no database connection: identity comes from the gateway over NATS.
const { databaseUrl: _databaseUrl, dbPoolSize: _dbPoolSize, ...withoutDatabase } = commonConfig;

export const loadMcpConfig = (source: Record<string, string | undefined> = process.env) => {
  const parsed = parseConfig(
    {
      ...withoutDatabase,
      ...edgeConfig,
      port: env.int('MCP_PORT', 3001, { min: 0, max: 65535 }),
      host: env.str('MCP_HOST', '127.0.0.1'),
      /** Browser origins allowed besides loopback ones, comma-separated; `*` allows any. */
      allowedOrigins: env.str('MCP_ALLOWED_ORIGINS', ''),
      /** Host names the server may be reached by, comma-separated; empty: Host is not checked. */
      allowedHosts: env.str('MCP_ALLOWED_HOSTS', ''),
      /**
       * This server's resource identifier (RFC 8707/9728): the URL clients paste and the audience
       * OAuth access tokens must carry. Default http://127.0.0.1:<MCP_PORT>/mcp.
       */
      resourceUrl: env.optionalUrl('MCP_RESOURCE_URL', ['http', 'https']),
      /**
       * The authorization server (the console's origin) named in the protected resource metadata;
       * default as the console's own: http://127.0.0.1:<CONSOLE_PORT, 3002>.
       */
      consolePublicUrl: env.optionalUrl('CONSOLE_PUBLIC_URL', ['http', 'https']),
      consolePort: env.int('CONSOLE_PORT', 3002, { min: 0, max: 65535 }),
    },
    source,
  );
  return {
    ...parsed,
    resourceUrl: parsed.resourceUrl ?? `http://127.0.0.1:${parsed.port}/mcp`,
    consolePublicUrl: parsed.consolePublicUrl ? new URL(parsed.consolePublicUrl).origin : `http://127.0.0.1:${parsed.consolePort}`,
  };
};

export type McpConfig = ReturnType<typeof loadMcpConfig>;
export const MCP_CONFIG = Symbol('MCP_CONFIG');
export const MCP_LOGGER = Symbol('MCP_LOGGER');
