import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { e2eState } from './state';

const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');

export interface SeededConnection {
  /** The OAuth access token (what the MCP client sends as its bearer). */
  secret: string;
  connectionId: string;
  grantId: string;
}

export interface SeedOptions {
  workspaceId: string;
  personId?: string | null;
  scopes: string[];
  botIds?: string[] | null;
  /** The token's audience (RFC 8707 resource); default the MCP URL. */
  audience?: string;
  /** Seconds the access token lives; negative: already expired. */
  expiresIn?: number;
  clientId?: string;
  clientName?: string;
}

/**
 * A connection as the authorization server leaves it after "Allow" and a token exchange, written
 * straight into schema `people` in the adapter's form (ids stored as sha256): the oidc-provider
 * Grant, one opaque access token of that grant, and the connection row. The console's real
 * console.connection.verify handler then answers for it. The browser flow itself is the e2e of
 * the authorization server; this seeds what it produces, to test the resource server and the
 * console's Connections routes apart.
 */
export async function seedConnection(o: SeedOptions): Promise<SeededConnection> {
  const s = e2eState();
  const db = new Client({ connectionString: s.databaseUrl });
  await db.connect();
  try {
    const grantId = randomBytes(16).toString('base64url');
    const secret = randomBytes(32).toString('base64url');
    const expiresIn = o.expiresIn ?? 600;
    const exp = Math.floor(Date.now() / 1000) + expiresIn;
    const clientId = o.clientId ?? `https://client-${randomBytes(3).toString('hex')}.example/oauth/client.json`;
    await db.query(
      `INSERT INTO people.oauth_artifacts (key_hash, model, grant_id, uid, payload, expires_at)
       VALUES ($1, 'Grant', NULL, NULL, $2, clock_timestamp() + interval '1 day')`,
      [sha256(grantId), JSON.stringify({ kind: 'Grant', clientId, accountId: o.personId ?? randomUUID(), resources: { [o.audience ?? s.mcpUrl]: o.scopes.join(' ') } })],
    );
    await db.query(
      `INSERT INTO people.oauth_artifacts (key_hash, model, grant_id, uid, payload, expires_at)
       VALUES ($1, 'AccessToken', $2, NULL, $3, clock_timestamp() + make_interval(secs => $4::int))`,
      [sha256(secret), grantId, JSON.stringify({ kind: 'AccessToken', grantId, clientId, scope: o.scopes.join(' '), aud: o.audience ?? s.mcpUrl, exp }), expiresIn],
    );
    const { rows } = await db.query(
      `INSERT INTO people.oauth_connections (workspace_id, person_id, client_id, client_name, redirect_host, grant_id, scopes, bot_ids)
       VALUES ($1, $2, $3, $4, 'client.example', $5, $6, $7) RETURNING id`,
      [o.workspaceId, o.personId ?? null, clientId, o.clientName ?? 'Test client', grantId, o.scopes, o.botIds ?? null],
    );
    return { secret, connectionId: rows[0].id, grantId };
  } finally {
    await db.end();
  }
}

/** Rows of people.oauth_artifacts left for a grant (the Grant and whatever carries its id). */
export async function artifactsOf(grantId: string): Promise<number> {
  const db = new Client({ connectionString: e2eState().databaseUrl });
  await db.connect();
  try {
    const { rows } = await db.query(`SELECT count(*)::int AS n FROM people.oauth_artifacts WHERE grant_id = $1 OR key_hash = $2`, [grantId, sha256(grantId)]);
    return rows[0].n;
  } finally {
    await db.end();
  }
}
