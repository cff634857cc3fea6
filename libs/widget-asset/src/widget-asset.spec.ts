import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadWidgetAsset, widgetAssetFile } from './widget-asset';

describe('loadWidgetAsset', () => {
  let root: string;
  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'widget-asset-'));
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it('reads dist/apps/widget/embed.js under the root and derives version, integrity and the hashed name', () => {
    const body = '(function(){window.SupportAgent={};})();\n';
    fs.mkdirSync(path.join(root, 'dist', 'apps', 'widget'), { recursive: true });
    fs.writeFileSync(path.join(root, 'dist', 'apps', 'widget', 'embed.js'), body);

    const asset = loadWidgetAsset(root);

    expect(asset.code.toString('utf8')).toBe(body);
    const sha256 = createHash('sha256').update(body).digest('hex');
    expect(asset.version).toBe(sha256.slice(0, 10));
    expect(asset.hashedName).toBe(`embed.${sha256.slice(0, 10)}.js`);
    expect(asset.hashedName).toMatch(/^embed\.[0-9a-f]{10}\.js$/);
    expect(asset.integrity).toBe(`sha384-${createHash('sha384').update(body).digest('base64')}`);
  });

  it('changes every derived value when one byte changes', () => {
    const file = widgetAssetFile(root);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, 'a');
    const first = loadWidgetAsset(root);
    fs.writeFileSync(file, 'b');
    const second = loadWidgetAsset(root);
    expect(second.version).not.toBe(first.version);
    expect(second.integrity).not.toBe(first.integrity);
    expect(second.hashedName).not.toBe(first.hashedName);
  });

  it('throws ENOENT when the widget was not built', () => {
    expect(() => loadWidgetAsset(root)).toThrow(expect.objectContaining({ code: 'ENOENT' }));
  });

  it('finds the repository build by default', () => {
    expect(widgetAssetFile()).toBe(path.resolve(__dirname, '..', '..', '..', 'dist', 'apps', 'widget', 'embed.js'));
  });
});
