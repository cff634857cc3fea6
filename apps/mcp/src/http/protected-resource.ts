import { Controller, Get, Inject, Res } from '@nestjs/common';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { SCOPES } from '@sa/contracts';
import { MCP_CONFIG, McpConfig } from '../config/mcp.config';

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
      void reply.header('www-authenticate', bearerChallenge(params));
    }
    return payload;
  });
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
