import 'reflect-metadata';
import { missingScopeForCall } from './mcp.controller';

describe('missingScopeForCall (the step-up challenge for OAuth connections)', () => {
  const call = (name: unknown) => ({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: {} } });

  it('names the scope a tools/call needs and the caller lacks', () => {
    expect(missingScopeForCall(call('add_knowledge'), { scopes: ['kb:read'] })).toBe('kb:write');
    expect(missingScopeForCall(call('list_bots'), { scopes: ['kb:read'] })).toBe('bots:read');
  });

  it('is null when the scope is granted, for other methods, unknown tools and malformed bodies', () => {
    expect(missingScopeForCall(call('list_bots'), { scopes: ['bots:read'] })).toBeNull();
    expect(missingScopeForCall({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { scopes: [] })).toBeNull();
    expect(missingScopeForCall(call('no_such_tool'), { scopes: [] })).toBeNull();
    expect(missingScopeForCall(call(42), { scopes: [] })).toBeNull();
    expect(missingScopeForCall(null, { scopes: [] })).toBeNull();
    expect(missingScopeForCall('text', { scopes: [] })).toBeNull();
  });

  it('looks at every message of a batch', () => {
    expect(missingScopeForCall([call('list_bots'), call('add_knowledge')], { scopes: ['bots:read'] })).toBe('kb:write');
  });
});
