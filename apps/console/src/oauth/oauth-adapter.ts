import { createHash } from 'node:crypto';
import type { DataSource } from 'typeorm';

/** SHA-256 (lowercase hex) of an artifact id: the only form an id is stored in. */
export const artifactHash = (id: string): string => createHash('sha256').update(id, 'utf8').digest('hex');

type Payload = Record<string, unknown>;

export interface OauthAdapterOptions {
  /** A rotated (consumed) refresh token still works once more within this many seconds. */
  refreshGraceSeconds: number;
  /** A client registered through DCR is forgotten after this long unused. */
  dcrClientTtlSeconds: number;
  /** Resolves a client_id that is a Client ID Metadata Document URL (undefined: not one / refused). */
  metadataDocument?: (clientId: string) => Promise<Payload | undefined>;
}

const epochNow = () => Math.floor(Date.now() / 1000);

/**
 * oidc-provider's storage in people.oauth_artifacts (one adapter instance per model). The id of
 * every artifact (codes, tokens, grants, interactions, sessions, clients) is stored only as its
 * SHA-256 (key_hash); `jti` is left out of the stored payload and put back from the id asked for.
 *
 * Two behaviours beyond plain storage:
 *  - RefreshToken: once consumed (rotated) a refresh token is still returned as unconsumed for
 *    one more use within `refreshGraceSeconds`, so that two concurrent refreshes both succeed;
 *    a later use finds it consumed and oidc-provider revokes the grant (reuse detection).
 *  - Client: a registered client's row expires `dcrClientTtlSeconds` after it was last used;
 *    a client_id that is an https URL is a Client ID Metadata Document, fetched (never stored).
 */
export class PgOauthAdapter {
  constructor(
    private readonly model: string,
    private readonly ds: DataSource,
    private readonly opts: OauthAdapterOptions,
  ) {}

  async upsert(id: string, payload: Payload, expiresIn?: number): Promise<void> {
    if (this.model === 'Client' && expiresIn === undefined) expiresIn = this.opts.dcrClientTtlSeconds;
    const { jti: _jti, ...stored } = payload;
    const grantId = typeof payload['grantId'] === 'string' ? payload['grantId'] : null;
    const uid = typeof payload['uid'] === 'string' ? payload['uid'] : null;
    await this.ds.query(
      `INSERT INTO people.oauth_artifacts (key_hash, model, grant_id, uid, payload, expires_at, consumed_at)
       VALUES ($1, $2, $3, $4, $5, CASE WHEN $6::int IS NULL THEN NULL ELSE clock_timestamp() + make_interval(secs => $6::int) END, NULL)
       ON CONFLICT (key_hash) DO UPDATE SET model = EXCLUDED.model, grant_id = EXCLUDED.grant_id, uid = EXCLUDED.uid,
         payload = EXCLUDED.payload, expires_at = EXCLUDED.expires_at`,
      [artifactHash(id), this.model, grantId, uid, JSON.stringify(stored), expiresIn === undefined ? null : Math.max(1, Math.ceil(expiresIn))],
    );
  }

  async find(id: string): Promise<Payload | undefined> {
    if (this.model === 'Client' && this.opts.metadataDocument && /^https?:\/\//i.test(id)) return this.opts.metadataDocument(id);
    const rows: { payload: Payload; consumed: number | null; grace_used: boolean }[] = await this.ds.query(
      `SELECT payload, extract(epoch FROM consumed_at)::bigint AS consumed, coalesce((payload->>'_graceUsed')::boolean, false) AS grace_used
         FROM people.oauth_artifacts
        WHERE key_hash = $1 AND model = $2 AND (expires_at IS NULL OR expires_at > clock_timestamp())`,
      [artifactHash(id), this.model],
    );
    const row = rows[0];
    if (!row) return undefined;
    const { _graceUsed: _g, ...payload } = row.payload;
    if (this.model === 'Client') {
      // Used: it lives another lifetime (touched at most once an hour).
      await this.ds.query(
        `UPDATE people.oauth_artifacts SET expires_at = clock_timestamp() + make_interval(secs => $2::int)
          WHERE key_hash = $1 AND expires_at < clock_timestamp() + make_interval(secs => $2::int) - interval '1 hour'`,
        [artifactHash(id), this.opts.dcrClientTtlSeconds],
      );
      return payload;
    }
    const result: Payload = { ...payload, jti: id };
    if (row.consumed !== null) {
      const consumed = Number(row.consumed);
      const inGrace = this.model === 'RefreshToken' && !row.grace_used && epochNow() - consumed < this.opts.refreshGraceSeconds;
      if (!inGrace) result['consumed'] = consumed;
    }
    return result;
  }

  async findByUid(uid: string): Promise<Payload | undefined> {
    const rows: { payload: Payload; key_hash: string }[] = await this.ds.query(
      `SELECT payload, key_hash FROM people.oauth_artifacts
        WHERE uid = $1 AND model = $2 AND (expires_at IS NULL OR expires_at > clock_timestamp())`,
      [uid, this.model],
    );
    // Only sessions are looked up by uid; their id (jti) is not needed by oidc-provider here
    // beyond being present, and it is never stored: the session is found again by its cookie.
    return rows[0] ? { ...rows[0].payload } : undefined;
  }

  async findByUserCode(): Promise<undefined> {
    return undefined; // device flow not enabled
  }

  async consume(id: string): Promise<void> {
    // The first use marks it consumed; a second use (the grace one, refresh tokens) is recorded so
    // that a third is refused.
    await this.ds.query(
      `UPDATE people.oauth_artifacts
          SET consumed_at = coalesce(consumed_at, clock_timestamp()),
              payload = CASE WHEN consumed_at IS NULL THEN payload ELSE payload || '{"_graceUsed": true}'::jsonb END
        WHERE key_hash = $1 AND model = $2`,
      [artifactHash(id), this.model],
    );
  }

  async destroy(id: string): Promise<void> {
    await this.ds.query(`DELETE FROM people.oauth_artifacts WHERE key_hash = $1 AND model = $2`, [artifactHash(id), this.model]);
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    await this.ds.query(`DELETE FROM people.oauth_artifacts WHERE grant_id = $1`, [grantId]);
  }
}

/** Deletes artifacts that expired more than a day ago (run now and then). */
export async function pruneOauthArtifacts(ds: DataSource): Promise<number> {
  const rows: unknown[] = await ds.query(`DELETE FROM people.oauth_artifacts WHERE expires_at < clock_timestamp() - interval '1 day' RETURNING 1`);
  return rows.length;
}
