import { queryRows, SqlRunner } from '@sa/db';
import { SIGNING_SECRET_PREFIX, SecretBox } from '@sa/secret-box';

/**
 * Encrypts the signing secrets still stored as issued (`whsec_…`, written before encryption at
 * rest) with `box`, and returns how many it changed. Each row is changed only if it still holds
 * the value read, so dispatchers starting together change each row once. The secrets themselves
 * do not change: receivers keep verifying with the ones they hold.
 */
export async function sealPlaintextSecrets(db: SqlRunner, box: SecretBox): Promise<number> {
  const rows = await queryRows<{ id: string; secret: string }>(db, `SELECT id, secret FROM webhooks.webhooks WHERE starts_with(secret, $1)`, [SIGNING_SECRET_PREFIX]);
  let sealed = 0;
  for (const row of rows) {
    const changed = await queryRows(db, `UPDATE webhooks.webhooks SET secret = $2 WHERE id = $1 AND secret = $3 RETURNING id`, [row.id, box.seal(row.secret), row.secret]);
    sealed += changed.length;
  }
  return sealed;
}
