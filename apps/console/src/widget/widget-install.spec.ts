import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { currentBuild, widgetInstall } from './widget-install';

describe('the widget install snippets', () => {
  const bot = '0b6f6d2e-5a55-4d7c-9d4e-3f6f1c2a9b10';
  const build = { integrity: 'sha384-abc+/=', hashedName: 'embed.0123456789.js' };

  it('the snippet loads embed.js (it follows upgrades); the pinned one loads this build with its integrity', () => {
    expect(widgetInstall('https://api.example.com', bot, build)).toEqual({
      script_url: 'https://api.example.com/widget/v1/embed.js',
      snippet: `<script src="https://api.example.com/widget/v1/embed.js" data-bot-id="${bot}" async></script>`,
      integrity: 'sha384-abc+/=',
      pinned_script_url: 'https://api.example.com/widget/v1/embed.0123456789.js',
      pinned_snippet: `<script src="https://api.example.com/widget/v1/embed.0123456789.js" data-bot-id="${bot}" integrity="sha384-abc+/=" crossorigin="anonymous" async></script>`,
    });
  });

  it('has no pinned snippet when the widget is not built', () => {
    expect(widgetInstall('http://127.0.0.1:3000', bot, null)).toEqual({
      script_url: 'http://127.0.0.1:3000/widget/v1/embed.js',
      snippet: `<script src="http://127.0.0.1:3000/widget/v1/embed.js" data-bot-id="${bot}" async></script>`,
      integrity: null,
      pinned_script_url: null,
      pinned_snippet: null,
    });
  });

  it('escapes what could end an attribute', () => {
    const install = widgetInstall('https://x.example/a"b<c>&', bot, build);
    expect(install.snippet).toContain('src="https://x.example/a&quot;b&lt;c&gt;&amp;/widget/v1/embed.js"');
    expect(install.pinned_snippet).toContain('src="https://x.example/a&quot;b&lt;c&gt;&amp;/widget/v1/embed.0123456789.js"');
  });

  it('reads the integrity and versioned name of the built file, or null when there is none', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'console-widget-'));
    try {
      expect(currentBuild(root)).toBeNull();
      fs.mkdirSync(path.join(root, 'dist', 'apps', 'widget'), { recursive: true });
      fs.writeFileSync(path.join(root, 'dist', 'apps', 'widget', 'embed.js'), 'x');
      expect(currentBuild(root)).toEqual({ integrity: expect.stringMatching(/^sha384-[A-Za-z0-9+/]{64}$/), hashedName: expect.stringMatching(/^embed\.[0-9a-f]{10}\.js$/) });
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
