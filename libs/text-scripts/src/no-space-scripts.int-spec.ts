import { Client } from 'pg';
// Test-only dependency.
import { createTestDatabase } from '@sa/testing';
import { scriptBigrams, scriptBigramsFunctionSql } from './no-space-scripts';

// The SQL function (as created by scriptBigramsFunctionSql, and as the chat and knowledge
// migrations created it in the migrated template) against the TypeScript one, on the real
// PostgreSQL: one list of scripts, so the index side and the query side cannot drift apart.

const SAMPLES = [
  'How to reset 密码重置方法 and ภาษาไทย 한국어 x 中 パスワード',
  'ລາວ ພາສາ, မြန်မာစာ, ភាសាខ្មែរ',
  '営業時間は9時から17時までです。',
  'ｶﾀｶﾅ and ㇰㇱㇲ small kana',
  '𠀀𠀁𠀂 extension B, 𪜀 C, 豈更 compatibility',
  'plain ASCII only, nothing to split',
  'Straße naïve café Привет مرحبا नमस्ते',
  '中',
  '',
  'emoji 😀 between 東京 and 大阪 🎌',
];

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let client: Client;

beforeAll(async () => {
  db = await createTestDatabase('sa_text_scripts');
  client = new Client({ connectionString: db.url });
  await client.connect();
  await client.query('CREATE SCHEMA text_scripts_test');
  await client.query(scriptBigramsFunctionSql('text_scripts_test'));
});

afterAll(async () => {
  await client?.end();
  await db?.drop();
});

describe.each(['text_scripts_test', 'chat', 'knowledge'])('%s.script_bigrams', (schema) => {
  it.each(SAMPLES)('gives the TypeScript bigrams, joined by spaces, for %j', async (text) => {
    const { rows } = await client.query(`SELECT ${schema}.script_bigrams($1) AS bigrams`, [text]);
    expect(rows[0].bigrams).toBe(scriptBigrams(text).join(' '));
  });
});
