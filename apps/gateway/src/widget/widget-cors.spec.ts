import 'reflect-metadata';
import Fastify, { FastifyInstance } from 'fastify';
import { PublicBot } from '@sa/contracts';
import { NotFound } from '@sa/errors';
import { installWidgetCors, originGranted } from './widget-cors';

const OPEN = '0b6f3c9e-6a55-4d0c-9a43-8b2a51c9d1f0';
const LIMITED = '1b6f3c9e-6a55-4d0c-9a43-8b2a51c9d1f0';
const MISSING = '2b6f3c9e-6a55-4d0c-9a43-8b2a51c9d1f0';

function bot(id: string, allowed_origins: string[]): PublicBot {
  return { id, tenant_id: id, name: 'B', language: 'en', allowed_origins, widget: { color: '#1a5fcc', position: 'right', greeting: null, launcher_text: null }, identity: false, starter_questions: [] };
}

describe('originGranted', () => {
  it('grants every origin when none is listed, else exactly the listed ones (canonical form)', () => {
    expect(originGranted(bot(OPEN, []), 'https://anything.example')).toBe(true);
    const b = bot(LIMITED, ['https://shop.example.com', 'http://localhost:8080']);
    expect(originGranted(b, 'https://shop.example.com')).toBe(true);
    expect(originGranted(b, 'https://SHOP.example.com:443')).toBe(true);
    expect(originGranted(b, 'http://localhost:8080')).toBe(true);
    expect(originGranted(b, 'http://shop.example.com')).toBe(false);
    expect(originGranted(b, 'https://evil.example')).toBe(false);
    expect(originGranted(b, 'null')).toBe(false);
  });
});

describe('installWidgetCors', () => {
  let app: FastifyInstance;
  let bodiesRead = 0;
  beforeAll(async () => {
    app = Fastify();
    const bots: Record<string, PublicBot> = { [OPEN]: bot(OPEN, []), [LIMITED]: bot(LIMITED, ['https://shop.example.com']) };
    installWidgetCors(app, async (id) => {
      const found = bots[id];
      if (!found) throw new NotFound('Bot');
      return found;
    });
    app.addHook('preValidation', async () => void bodiesRead++);
    app.post('/widget/v1/bots/:botId/chat', async () => ({ ok: true }));
    app.get('/widget/v1/bots/:botId/config', async () => ({ ok: true }));
    app.options('*', async (_req, reply) => reply.code(204).send());
    await app.ready();
  });
  afterAll(() => app.close());

  const preflight = (botId: string, origin: string) =>
    app.inject({ method: 'OPTIONS', url: `/widget/v1/bots/${botId}/chat`, headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' } });

  it('a granted preflight: 204 with the origin, GET/POST and Content-Type', async () => {
    for (const [id, origin] of [
      [LIMITED, 'https://shop.example.com'],
      [OPEN, 'https://any.example'],
    ] as const) {
      const res = await preflight(id, origin);
      expect(res.statusCode).toBe(204);
      expect(res.headers['access-control-allow-origin']).toBe(origin);
      expect(res.headers['access-control-allow-methods']).toBe('GET, POST');
      expect(res.headers['access-control-allow-headers']).toBe('Content-Type');
      expect(res.headers['vary']).toBe('Origin');
      expect(res.headers['access-control-allow-credentials']).toBeUndefined();
    }
  });

  it('a refused preflight: 204 without any grant', async () => {
    const res = await preflight(LIMITED, 'https://evil.example');
    expect(res.statusCode).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    expect(res.headers['access-control-allow-methods']).toBeUndefined();
  });

  it('a request from another origin: 403 origin_not_allowed before the body is read', async () => {
    const before = bodiesRead;
    const res = await app.inject({ method: 'POST', url: `/widget/v1/bots/${LIMITED}/chat`, headers: { origin: 'https://evil.example', 'content-type': 'application/json' }, payload: { message: 'hi' } });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ code: 'origin_not_allowed' });
    expect(bodiesRead).toBe(before);
    // No grant for a refused origin, not even to read the refusal (issue 30).
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    expect(res.headers['access-control-expose-headers']).toBeUndefined();
    const config = await app.inject({ method: 'GET', url: `/widget/v1/bots/${LIMITED}/config`, headers: { origin: 'https://evil.example' } });
    expect([config.statusCode, config.headers['access-control-allow-origin']]).toEqual([403, undefined]);
  });

  it('granted requests carry the origin and the exposed headers; no Origin passes unchecked', async () => {
    const granted = await app.inject({ method: 'GET', url: `/widget/v1/bots/${LIMITED}/config`, headers: { origin: 'https://shop.example.com' } });
    expect(granted.statusCode).toBe(200);
    expect(granted.headers['access-control-allow-origin']).toBe('https://shop.example.com');
    expect(granted.headers['access-control-expose-headers']).toContain('X-Session-Id');
    expect(granted.headers['access-control-expose-headers']).toContain('Retry-After');
    const server = await app.inject({ method: 'GET', url: `/widget/v1/bots/${LIMITED}/config` });
    expect(server.statusCode).toBe(200);
    expect(server.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('leaves an unknown bot to the route', async () => {
    const res = await app.inject({ method: 'GET', url: `/widget/v1/bots/${MISSING}/config`, headers: { origin: 'https://evil.example' } });
    expect(res.statusCode).toBe(200);
  });
});
