import type { ModelConnectionSpec } from '@sa/contracts';
import { connectionBaseUrl, describeConnection, explainConnectionFailure, withoutKey } from './connection-models';

const spec = (over: Partial<ModelConnectionSpec>): ModelConnectionSpec => ({ id: 'c1', kind: 'openai', base_url: null, model: 'm', api_key_sealed: null, updated_at: '2026-01-01T00:00:00.000Z', ...over });
const guard = (code: string, message: string) => Object.assign(new Error(message), { name: 'GuardError', code });

describe('connection models', () => {
  it("goes to the provider's own URL unless the connection names one", () => {
    expect(connectionBaseUrl(spec({}), 'http://ollama:11434')).toBe('https://api.openai.com/v1');
    expect(connectionBaseUrl(spec({ kind: 'anthropic' }), 'http://ollama:11434')).toBe('https://api.anthropic.com');
    expect(connectionBaseUrl(spec({ kind: 'ollama' }), 'http://ollama:11434')).toBe('http://ollama:11434');
    expect(connectionBaseUrl(spec({ base_url: 'https://openrouter.ai/api/v1' }), 'x')).toBe('https://openrouter.ai/api/v1');
    expect(describeConnection(spec({ kind: 'anthropic', model: 'claude-haiku-4-5' }), 'x')).toBe('anthropic (model claude-haiku-4-5 at https://api.anthropic.com)');
  });

  it('keeps the key out of what the provider said', () => {
    expect(withoutKey('Incorrect API key provided: sk-live-123456.', 'sk-live-123456')).toBe('Incorrect API key provided: [key].');
    expect(withoutKey('nothing to hide', null)).toBe('nothing to hide');
  });

  it('says plainly why a call failed: refused key, unknown model, rate limit, blocked, timeout, unreachable', () => {
    const status = (n: number, m: string) => Object.assign(new Error(m), { status: n });
    expect(explainConnectionFailure(status(401, '401 invalid x-api-key sk-secret-1'), 'sk-secret-1')).toEqual({ status: 401, message: 'The provider refused the key (HTTP 401): 401 invalid x-api-key [key]' });
    expect(explainConnectionFailure(status(404, 'model: nope'), null).message).toMatch(/^The provider does not know this model, or the base URL is wrong \(HTTP 404\)/);
    expect(explainConnectionFailure(status(429, 'slow down'), null).status).toBe(429);
    const linked = status(404, '404 The model `x` does not exist.\n\nTroubleshooting URL: https://docs.langchain.com/oss/javascript/langchain/errors/MODEL_NOT_FOUND/\n');
    expect(explainConnectionFailure(linked, null).message).toBe('The provider does not know this model, or the base URL is wrong (HTTP 404): 404 The model `x` does not exist.');
    expect(explainConnectionFailure(status(500, 'boom'), null).message).toBe('The provider answered HTTP 500: boom');
    const blocked = new Error('Connection error.', { cause: guard('blocked', '10.0.0.5 is a private address') });
    expect(explainConnectionFailure(blocked, null)).toEqual({ status: null, message: expect.stringMatching(/^Blocked by the outbound policy: 10.0.0.5 is a private address\. .*OUTBOUND_ALLOW_CIDRS/) });
    expect(explainConnectionFailure(new Error('x', { cause: guard('timeout', 'timed out after 100 ms') }), null).message).toBe('No answer in time: timed out after 100 ms.');
    expect(explainConnectionFailure(new Error('Connection error.', { cause: guard('network', 'connection refused by 127.0.0.1:9') }), null).message).toBe('Unreachable: connection refused by 127.0.0.1:9.');
    expect(explainConnectionFailure(new Error('fetch failed'), null)).toEqual({ status: null, message: 'Unreachable: fetch failed' });
  });
});
