import { Controller, Get, Inject, Res } from '@nestjs/common';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { SCOPES } from '@sa/contracts';
import { MCP_CONFIG, McpConfig } from '../config/mcp.config';
import { TOOLS } from '../tools/catalogue';

/** The two well-known forms of RFC 9728: at the root, and path-inserted for the resource's path (/mcp). */
export const WELL_KNOWN_PATH = '/.well-known/oauth-protected-resource';

export interface ProtectedResourceMetadata {
  resource: string;
  authorization_servers: string[];
  scopes_supported: string[];
  bearer_methods_supported: string[];
  resource_name: string;
}

export function protectedResourceMetadata(config: Pick<McpConfig, 'resourceUrl' | 'consolePublicUrl'>): ProtectedResourceMetadata {
  return {
    resource: config.resourceUrl,
    authorization_servers: [config.consolePublicUrl],
    scopes_supported: [...SCOPES],
    bearer_methods_supported: ['header'],
    resource_name: 'Support agent MCP server',
  };
}

/**
 * The scopes a client should ask for (the `scope` of every 401 challenge, MCP authorization
 * 2025-11-25 "scope selection"): those of the MCP tools, in the order of SCOPES. Without it the
 * SDK and the Inspector ask for all of scopes_supported, bots:write included, which no tool uses.
 * The person still chooses on the consent page.
 */
export const TOOL_SCOPES: readonly string[] = SCOPES.filter((s) => TOOLS.some((t) => t.scope === s));

/** The 401 body on /mcp when no bearer was sent, or the shared message spoke only of API tokens. */
export const MCP_UNAUTHORIZED_MESSAGE =
  'Missing, invalid, expired or revoked token. Send "Authorization: Bearer <token>" with an OAuth access token (an MCP client gets one from the authorization server named by the resource metadata in WWW-Authenticate, after a workspace owner or admin approves it) or an API token (mgpt_…).';

/** The URL clients are sent to by every 401 (on the resource's own origin, as clients reach it). */
export function resourceMetadataUrl(resourceUrl: string): string {
  return new URL(WELL_KNOWN_PATH, resourceUrl).toString();
}

const quoted = (v: string) => `"${v.replace(/["\\]/g, '\\$&')}"`;

/** `Bearer k="v", …` (RFC 6750 section 3). */
export function bearerChallenge(params: Record<string, string>): string {
  const list = Object.entries(params).map(([k, v]) => `${k}=${quoted(v)}`);
  return list.length ? `Bearer ${list.join(', ')}` : 'Bearer';
}

/**
 * The MCP server as an OAuth protected resource (RFC 9728, MCP authorization 2025-11-25):
 * - every 401 on /mcp says where the metadata is: `WWW-Authenticate: Bearer resource_metadata="…"`
 *   (plus `error="invalid_token"` when a bearer was sent and refused, RFC 6750);
 * - the metadata is public and static, readable by any browser origin (`Access-Control-Allow-Origin: *`,
 *   preflights included: the SDK sends MCP-Protocol-Version with its discovery requests).
 */
export function installProtectedResource(fastify: FastifyInstance, config: Pick<McpConfig, 'resourceUrl'>): void {
  const metadataUrl = resourceMetadataUrl(config.resourceUrl);
  fastify.addHook('onRequest', async (req, reply) => {
    const path = req.url.split('?')[0].replace(/\/+$/, '');
    if (path === WELL_KNOWN_PATH || path.startsWith(`${WELL_KNOWN_PATH}/`)) void reply.header('access-control-allow-origin', '*');
  });
  fastify.addHook('onSend', async (req, reply, payload) => {
    if (reply.statusCode === 401 && req.url.split('?')[0].replace(/\/+$/, '') === '/mcp') {
      const params: Record<string, string> = {};
      if (/^Bearer\s/i.test(String(req.headers.authorization ?? ''))) params['error'] = 'invalid_token';
      params['resource_metadata'] = metadataUrl;
      params['scope'] = TOOL_SCOPES.join(' ');
      void reply.header('www-authenticate', bearerChallenge(params));
      return mcpUnauthorizedBody(payload);
    }
    return payload;
  });
}

/**
 * The shared edge's 401 message speaks of API tokens (the REST API takes only those); on /mcp an
 * OAuth access token is as good, so a message about API tokens only is replaced (a specific one,
 * such as "This access token has expired", is kept). The body keeps its shape and code.
 */
export function mcpUnauthorizedBody(payload: unknown): unknown {
  if (typeof payload !== 'string') return payload;
  try {
    const body = JSON.parse(payload) as Record<string, unknown>;
    if (!body || typeof body !== 'object' || typeof body['message'] !== 'string' || !/API token/.test(body['message'])) return payload;
    return JSON.stringify({ ...body, message: MCP_UNAUTHORIZED_MESSAGE });
  } catch {
    return payload;
  }
}

@Controller()
export class ProtectedResourceController {
  private readonly metadata: ProtectedResourceMetadata;

  constructor(@Inject(MCP_CONFIG) config: McpConfig) {
    this.metadata = protectedResourceMetadata(config);
  }

  @Get(WELL_KNOWN_PATH.slice(1))
  root(@Res() reply: FastifyReply): void {
    this.send(reply);
  }

  @Get(`${WELL_KNOWN_PATH.slice(1)}/mcp`)
  forMcp(@Res() reply: FastifyReply): void {
    this.send(reply);
  }

  private send(reply: FastifyReply): void {
    void reply.header('cache-control', 'public, max-age=3600').type('application/json; charset=utf-8').send(this.metadata);
  }
}
