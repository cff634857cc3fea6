import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

/** The built visitor widget (`dist/apps/widget/embed.js`), as the gateway serves it and the console publishes it. */
export interface WidgetAsset {
  /** The file's bytes, served as is. */
  code: Buffer;
  /** The content's version: the first 10 hex digits of its SHA-256 (changes with every build that changes a byte). */
  version: string;
  /** Subresource Integrity value for `<script integrity="…">`: `sha384-<base64>`. */
  integrity: string;
  /** The content-addressed file name, served with a one-year immutable cache: `embed.<version>.js`. */
  hashedName: string;
}

/**
 * The directory holding `dist/`: the repository in development, `/app` in the image. This file
 * runs as `libs/widget-asset/src/*.ts` (tests, ts tooling) or compiled as
 * `dist/libs/widget-asset/src/*.js`.
 */
function defaultRoot(): string {
  const up3 = path.resolve(__dirname, '..', '..', '..');
  return path.basename(up3) === 'dist' ? path.dirname(up3) : up3;
}

/** Where the built widget lives under `root` (the directory holding `dist/`). */
export function widgetAssetFile(root: string = defaultRoot()): string {
  return path.join(root, 'dist', 'apps', 'widget', 'embed.js');
}

/**
 * Reads the built widget once and computes what serving and publishing it need. Throws the file
 * system's error (code ENOENT) when the widget has not been built (`node tools/build.js`).
 */
export function loadWidgetAsset(root?: string): WidgetAsset {
  const code = fs.readFileSync(widgetAssetFile(root));
  const version = createHash('sha256').update(code).digest('hex').slice(0, 10);
  const integrity = `sha384-${createHash('sha384').update(code).digest('base64')}`;
  return { code, version, integrity, hashedName: `embed.${version}.js` };
}
