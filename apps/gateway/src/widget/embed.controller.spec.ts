import 'reflect-metadata';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Module } from '@nestjs/common';
import { APP_FILTER, NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import pino from 'pino';
import { HttpErrorFilter, installHttpPolicy } from '@sa/edge';
import { WidgetAsset, loadWidgetAsset } from '@sa/widget-asset';
import { readWidgetAsset } from './embed-asset';
import { WidgetEmbedController } from './embed.controller';
import { WIDGET_ASSET } from './embed.tokens';

async function appWith(asset: WidgetAsset | null): Promise<NestFastifyApplication> {
  @Module({
    controllers: [WidgetEmbedController],
    providers: [
      { provide: WIDGET_ASSET, useValue: asset },
      { provide: APP_FILTER, useFactory: () => new HttpErrorFilter(pino({ level: 'silent' })) },
    ],
  })
  class TestModule {}
  const adapter = new FastifyAdapter();
  // The gateway's policy: every answer is no-store unless the route says otherwise.
  installHttpPolicy(adapter.getInstance(), { corsAllowedOrigins: [], corsPaths: ['/v1'], corsAllowHeaders: [] });
  const app = await NestFactory.create<NestFastifyApplication>(TestModule, adapter, { logger: false });
  await app.init();
  await app.getHttpAdapter().getInstance().ready();
  return app;
}

describe('GET /widget/v1/embed.js, /widget/v1/embed.<hash>.js, /widget/v1/embed.json', () => {
  let root: string;
  let asset: WidgetAsset;
  let app: NestFastifyApplication;
  const body = '(function(){window.SupportAgent={version:"1"}})();\n';

  beforeAll(async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'embed-'));
    fs.mkdirSync(path.join(root, 'dist', 'apps', 'widget'), { recursive: true });
    fs.writeFileSync(path.join(root, 'dist', 'apps', 'widget', 'embed.js'), body);
    asset = loadWidgetAsset(root);
    app = await appWith(asset);
  });
  afterAll(async () => {
    await app.close();
    fs.rmSync(root, { recursive: true, force: true });
  });
  const get = (url: string, headers: Record<string, string> = {}) => app.getHttpAdapter().getInstance().inject({ method: 'GET', url, headers });

  it('serves the script for an hour with an ETag, to any origin, as JavaScript', async () => {
    const res = await get('/widget/v1/embed.js');
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe(body);
    expect(res.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(res.headers['cache-control']).toBe('public, max-age=3600');
    expect(res.headers['etag']).toBe(`"${asset.version}"`);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['cross-origin-resource-policy']).toBe('cross-origin');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    const again = await get('/widget/v1/embed.js', { 'if-none-match': `"${asset.version}"` });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    expect((await get('/widget/v1/embed.js', { 'if-none-match': '"0000000000"' })).statusCode).toBe(200);
  });

  it('serves the same bytes under the hashed name for a year, immutable', async () => {
    const res = await get(`/widget/v1/${asset.hashedName}`);
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe(body);
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(res.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['cross-origin-resource-policy']).toBe('cross-origin');
  });

  it('answers 404 (no-store) for another version or any other file', async () => {
    for (const url of ['/widget/v1/embed.0123456789.js', '/widget/v1/other.js']) {
      const res = await get(url);
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual(expect.objectContaining({ code: 'not_found' }));
      expect(res.headers['cache-control']).toBe('no-store');
    }
  });

  it('publishes version, paths and the SRI hash in embed.json', async () => {
    const res = await get('/widget/v1/embed.json');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ version: asset.version, url_path: '/widget/v1/embed.js', hashed_path: `/widget/v1/${asset.hashedName}`, integrity: asset.integrity });
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['cross-origin-resource-policy']).toBe('cross-origin');
    expect(res.json().integrity).toMatch(/^sha384-[A-Za-z0-9+/]{64}$/);
  });
});

describe('a gateway without a built widget', () => {
  it('starts, logs once that the script is missing, and answers 404 with a clear message on all three routes', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'embed-none-'));
    const lines: string[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
    const asset = readWidgetAsset(logger, root);
    expect(asset).toBeNull();
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toEqual(expect.objectContaining({ level: 40, msg: expect.stringContaining('widget script not found') }));
    const app = await appWith(asset);
    try {
      for (const url of ['/widget/v1/embed.js', '/widget/v1/embed.json', '/widget/v1/embed.0123456789.js']) {
        const res = await app.getHttpAdapter().getInstance().inject({ method: 'GET', url });
        expect(res.statusCode).toBe(404);
        expect(res.json()).toEqual(expect.objectContaining({ code: 'not_found', message: expect.stringContaining('not built') }));
      }
    } finally {
      await app.close();
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
