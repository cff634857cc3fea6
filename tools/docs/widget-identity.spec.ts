import { spawnSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * The server-side userHash snippets of the widget guide (docs/widget.md, "Put the bot on your
 * website") compute the hash the widget's identify call needs: HMAC-SHA256, key = the widget
 * secret's UTF-8 bytes, message = the user id's UTF-8 bytes, lowercase hex. The Node and Python
 * snippets are taken from the guide as written and run against the documented test vector (PHP is
 * not installed here).
 */
const GUIDE = fs.readFileSync(path.resolve(__dirname, '..', '..', 'docs', 'widget.md'), 'utf8');
const SECRET = 'wsk_Zm9yIGRvY3VtZW50YXRpb24gb25seSwgbm90IGEga2V';
const VECTOR = { userId: 'user-42', hash: '97c699a75c13bc67c38ce23efeda7580a80259a2c1dc059cd50bf22584a19a85' };

function snippet(lang: string, firstLine: string): string {
  const start = GUIDE.indexOf('# Put the bot on your website');
  if (start < 0) throw new Error('docs/widget.md: no section "Put the bot on your website"');
  const section = GUIDE.slice(start);
  const block = new RegExp('```' + lang + '\\n(' + firstLine.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') + '\\n[\\s\\S]*?)```').exec(section);
  if (!block) throw new Error(`docs/widget.md: no ${lang} block starting with ${firstLine}`);
  return block[1];
}

function run(cmd: string, args: string[], userId: string): string {
  const r = spawnSync(cmd, [...args, userId], { env: { PATH: process.env['PATH'], WIDGET_SECRET: SECRET }, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${cmd} failed: ${r.stderr}`);
  return r.stdout.trim();
}

describe('docs/widget.md: userHash for SupportAgent.identify', () => {
  it('documents the test vector it is checked against', () => {
    expect(GUIDE).toContain(SECRET);
    expect(GUIDE).toContain(VECTOR.hash);
    expect(createHmac('sha256', Buffer.from(SECRET, 'utf8')).update(Buffer.from(VECTOR.userId, 'utf8')).digest('hex')).toBe(VECTOR.hash);
  });

  it.each([VECTOR.userId, 'zoë@例え.jp'])('the Node snippet computes it (%s)', (userId) => {
    const code = `const userId = process.argv[1];\n${snippet('js', '// Node.js')}\nconsole.log(userHash);`;
    expect(run(process.execPath, ['-e', code], userId)).toBe(createHmac('sha256', SECRET).update(userId, 'utf8').digest('hex'));
  });

  it.each([VECTOR.userId, 'zoë@例え.jp'])('the Python snippet computes the same (%s)', (userId) => {
    const code = `import sys\nuser_id = sys.argv[1]\n${snippet('python', '# Python')}\nprint(user_hash)`;
    expect(run('python3', ['-c', code], userId)).toBe(createHmac('sha256', SECRET).update(userId, 'utf8').digest('hex'));
  });
});
