import type { VerifyConnectionTokenReply } from '@sa/contracts';
import { Unauthorized } from '@sa/errors';
import { TOKEN_PREFIX, VerifiedToken, WorkspaceFacts, hashTokenSecret, tokenGrantFromView, workspaceFactsFromView } from '@sa/identity';
import type { BearerVerifier } from './edge-auth';

/** How the console is asked about an OAuth access token (`console.connection.verify` over NATS). */
export type ConnectionLookup = (tokenHash: string) => Promise<VerifyConnectionTokenReply>;

/** A workspace by id, when the console's reply carries none (the identity cache of the edge). */
export type WorkspaceLookup = (id: string) => Promise<WorkspaceFacts | null>;

/** RFC 8707 resource identifiers compared with a trailing-slash difference tolerated (a known interop failure). */
export function sameResource(a: string, b: string): boolean {
  const norm = (s: string) => s.replace(/\/+$/, '');
  return norm(a) === norm(b);
}

/** Bearer secrets an OAuth access token may be: printable, no spaces, bounded (nothing else goes to NATS). */
const ACCESS_TOKEN_SHAPE = /^[\x21-\x7e]{16,2048}$/;

/**
 * OAuth access tokens of MCP connections (issue 17): any bearer that is not an API token
 * (`mgpt_…`). The console, owner of connections, answers `console.connection.verify` with the
 * connection as a token-shaped grant (id = connection id, scopes, bots, expiry) and the resource
 * the token was issued for; anything but this server's exact resource URL is refused.
 *
 * No cache, on purpose: a revoked connection is refused at once on every replica, with no
 * broadcast to get right. The cost is one NATS round trip to the console per MCP request:
 * measured with the e2e system on the shared 2-core machine, an MCP `ping` took 4.1-5.1 ms with an
 * OAuth token (stand-in responder) against 3.5-4.1 ms with a cached API token, so about 0.5-1.5 ms,
 * plus the console's one indexed lookup by token hash; small beside a tool call, which itself
 * makes one or more NATS calls. If it ever matters: cache with the console broadcasting revocations.
 */
export class ConnectionVerifier implements BearerVerifier {
  constructor(
    private readonly lookup: ConnectionLookup,
    private readonly workspaceById: WorkspaceLookup,
    private readonly resourceUrl: string,
  ) {}

  accepts(secret: string): boolean {
    return !secret.startsWith(TOKEN_PREFIX) && ACCESS_TOKEN_SHAPE.test(secret);
  }

  rateKey(id: string): string {
    return `connection:${id}`;
  }

  async verify(secret: string, now: Date = new Date()): Promise<VerifiedToken> {
    if (!this.accepts(secret)) throw new Unauthorized();
    const tokenHash = hashTokenSecret(secret);
    const reply = await this.lookup(tokenHash);
    if (!reply.token) throw new Unauthorized('Missing, invalid, expired or revoked access token');
    if (!reply.audience || !sameResource(reply.audience, this.resourceUrl)) throw new Unauthorized('This access token was not issued for this MCP server');
    const token = tokenGrantFromView(reply.token);
    if (token.expiresAt && token.expiresAt.getTime() <= now.getTime()) throw new Unauthorized('This access token has expired');
    const workspace = reply.workspace ? workspaceFactsFromView(reply.workspace) : await this.workspaceById(token.workspaceId);
    if (!workspace || workspace.id !== token.workspaceId) throw new Unauthorized();
    return { token, workspace };
  }
}
