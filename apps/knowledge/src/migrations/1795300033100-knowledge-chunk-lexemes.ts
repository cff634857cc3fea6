import { MigrationInterface, QueryRunner } from 'typeorm';
import { documentLexemes } from '@sa/lexicon';

/**
 * Issue 33, "paraphrases offline": chunks are also indexed by the stems of their language.
 *
 * - `language`: the chunk's lexicon language (@sa/lexicon, detected from its text when it is
 *   written), null for languages the lexicon has nothing for.
 * - `lex`: the chunk's words through the PostgreSQL text-search configuration of its language
 *   (Snowball: english, indonesian, hindi, arabic, tamil), or 'simple' without one; plus the stems
 *   @nlpjs/lang-* makes for languages PostgreSQL lacks (Malay, Filipino, Japanese tokens); plus the
 *   character bigrams of scripts written without spaces, as in `tsv`. Written by the store (the
 *   stems come from Node), so it is a plain column, not a generated one.
 *   `tsv` stays: TEXT_MATCH=surface searches it as before.
 *
 * Existing chunks are filled here, in batches, with the same code the store writes with.
 */
export class KnowledgeChunkLexemes1795300033100 implements MigrationInterface {
  name = 'KnowledgeChunkLexemes1795300033100';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE knowledge.chunks ADD COLUMN language text NULL, ADD COLUMN lex tsvector NOT NULL DEFAULT ''::tsvector`);
    const BATCH = 500;
    let after = '0';
    for (;;) {
      const rows: { seq: string; title: string | null; text: string }[] = await q.query(`SELECT seq::text AS seq, title, text FROM knowledge.chunks WHERE seq > $1 ORDER BY seq LIMIT $2`, [after, BATCH]);
      if (!rows.length) break;
      const lexemes = rows.map((r) => documentLexemes(`${r.title ?? ''} ${r.text}`));
      await q.query(
        `UPDATE knowledge.chunks c
            SET language = u.language,
                lex = to_tsvector(u.cfg::regconfig, coalesce(c.title, '') || ' ' || c.text)
                   || to_tsvector('simple', u.extra)
                   || to_tsvector('simple', knowledge.script_bigrams(coalesce(c.title, '') || ' ' || c.text))
           FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[]) AS u(seq, language, cfg, extra)
          WHERE c.seq = u.seq`,
        [rows.map((r) => r.seq), lexemes.map((l) => l.language), lexemes.map((l) => l.pgConfig), lexemes.map((l) => l.extra)],
      );
      after = rows[rows.length - 1].seq;
    }
    await q.query(`CREATE INDEX chunks_lex_idx ON knowledge.chunks USING gin (lex)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX knowledge.chunks_lex_idx`);
    await q.query(`ALTER TABLE knowledge.chunks DROP COLUMN lex, DROP COLUMN language`);
  }
}
