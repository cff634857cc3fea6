import 'reflect-metadata';
import { expectValidOpenApi31 } from '@sa/testing';
import { routesOf } from '@sa/openapi';
import { CONSOLE_CONTROLLERS } from '../console.controllers';
import { consoleApiDocument } from './console-documents';

let doc: Record<string, any>;

beforeAll(async () => {
  doc = (await consoleApiDocument()) as never;
});

describe('the console API document (GET /api/openapi.json)', () => {
  it('is a valid OpenAPI 3.1 document (@seriousme/openapi-schema-validator)', () => {
    expectValidOpenApi31(doc);
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.servers).toEqual([{ url: '/api', description: expect.any(String) }]);
  });

  it('describes every route of the console’s controllers, and nothing else', () => {
    const routes = CONSOLE_CONTROLLERS.flatMap(routesOf).map((r) => `${r.method.toUpperCase()} ${r.path.replace(/^\/api/, '')}`);
    const documented = Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([path, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${path}`));
    expect(documented.sort()).toEqual(routes.sort());
    expect(documented).toEqual(
      expect.arrayContaining([
        'GET /workspaces/{workspaceId}',
        'GET /workspaces/{workspaceId}/bots',
        'GET /workspaces/{workspaceId}/tokens',
        'POST /workspaces/{workspaceId}/tokens',
        'POST /workspaces/{workspaceId}/tokens/{tokenId}/revoke',
        'GET /workspaces/{workspaceId}/webhooks',
        'POST /workspaces/{workspaceId}/webhooks',
        'DELETE /workspaces/{workspaceId}/webhooks/{webhookId}',
        'POST /workspaces/{workspaceId}/webhooks/{webhookId}/rotate-secret',
        'POST /workspaces/{workspaceId}/webhooks/{webhookId}/test',
        'GET /workspaces/{workspaceId}/webhooks/{webhookId}/deliveries',
        'POST /workspaces/{workspaceId}/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver',
        'GET /openapi.json',
      ]),
    );
  });

  it('gives each operation a unique operationId, its security and the role it needs', () => {
    const ops = Object.values(doc.paths as Record<string, Record<string, any>>).flatMap((item) => Object.entries(item));
    const ids = ops.map(([, op]) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    const tokens = doc.paths['/workspaces/{workspaceId}/tokens'];
    expect(tokens.get.security).toEqual([{ sessionCookie: [] }]);
    expect(tokens.get['x-required-role']).toBe('member');
    expect(tokens.post.security).toEqual([{ sessionCookie: [], csrfToken: [] }]);
    expect(tokens.post['x-required-role']).toBe('admin');
    expect(tokens.post.description).toMatch(/Required role: `admin` or above\.$/);
    expect(doc.paths['/openapi.json'].get.security).toEqual([]);
    expect(doc.paths['/session'].post.security).toEqual([]);
    expect(Object.keys(doc.components.securitySchemes)).toEqual(['sessionCookie', 'csrfToken']);
  });

  it('takes its schemas from the contract classes: bodies closed, views with their members', () => {
    const schemas = doc.components.schemas;
    const body = doc.paths['/workspaces/{workspaceId}/tokens'].post.requestBody.content['application/json'].schema;
    expect(body).toEqual({ $ref: '#/components/schemas/CreateApiTokenRequest' });
    expect(schemas.CreateApiTokenRequest.additionalProperties).toBe(false);
    expect(schemas.CreateApiTokenRequest.required).toEqual(['name', 'scopes']);
    expect(Object.keys(schemas.CreatedApiToken.properties)).toEqual(expect.arrayContaining(['id', 'token', 'hint', 'scopes', 'bot_ids', 'revoked_at']));
    expect(schemas.Webhook.properties.last_delivery).toEqual({ anyOf: [{ $ref: '#/components/schemas/LastDelivery' }, { type: 'null' }] });
    expect(Object.keys(schemas.Workspace.properties)).toEqual(['id', 'name', 'role', 'plan', 'billing_status', 'trial_ends_at', 'live_access', 'usage']);
    const list = doc.paths['/workspaces/{workspaceId}/webhooks'].get.responses['200'].content['application/json'].schema;
    expect(list).toEqual({ type: 'object', properties: { data: { type: 'array', items: { $ref: '#/components/schemas/Webhook' } } }, required: ['data'] });
    expect(doc.paths['/workspaces/{workspaceId}/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver'].post.responses).toHaveProperty('409');
  });
});
