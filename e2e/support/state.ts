/** What the global setup started, shared with every e2e test file through the environment. */
export interface E2eState {
  root: string;
  baseUrl: string;
  gatewayUrl: string;
  /** The MCP endpoint (Streamable HTTP), http://127.0.0.1:<MCP_PORT>/mcp. */
  mcpUrl: string;
  /** The owner console, http://127.0.0.1:<CONSOLE_PORT> (its API under /api). */
  consoleUrl: string;
  /** Each app's ops endpoint (/healthz, /readyz, /metrics), by app name. */
  opsUrls: Record<string, string>;
  databaseUrl: string;
  natsUrl: string;
  redisUrl: string | null;
  rateLimitPrefix: string;
  logDir: string;
  /** Port of the local test site the knowledge tests serve (allowlisted for crawling). */
  sitePort: number;
  /**
   * Port of a second allowlisted site origin, for crawling tests whose pages (and robots.txt) differ
   * from the test site's: robots.txt is cached per origin, so they must not share `sitePort`.
   */
  crawlSitePort: number;
  /** Port of the local webhook receiver (allowlisted for delivery). */
  receiverPort: number;
  env: Record<string, string>;
}

export function e2eState(): E2eState {
  const raw = process.env['SA_E2E_STATE'];
  if (!raw) throw new Error('SA_E2E_STATE is not set: run e2e tests through jest --selectProjects e2e');
  return JSON.parse(raw) as E2eState;
}
