import { redirectUriRefusal, redirectUrisRefusal } from './redirect-uri';

describe('redirect URIs a client may register', () => {
  it.each(['https://claude.ai/api/mcp/auth_callback', 'http://127.0.0.1:33418/callback', 'http://localhost:6274/oauth/callback', 'http://[::1]:8080/cb', 'com.example.app:/oauth2redirect'])('allows %s', (uri) => {
    expect(redirectUriRefusal(uri)).toBeNull();
  });

  it.each([
    ['http://evil.example.com/cb', /loopback/],
    ['http://10.0.0.5/cb', /loopback/],
    ['javascript:alert(1)', /not allowed/],
    ['data:text/html,hi', /not allowed/],
    ['https://example.com/cb#frag', /fragment/],
    ['https://user:pw@example.com/cb', /credentials/],
    ['myapp:/cb', /reverse domain/],
    ['/relative', /absolute/],
    [42, /URL/],
  ])('refuses %s', (uri, reason) => {
    expect(redirectUriRefusal(uri)).toMatch(reason);
  });

  it('checks every URI of a list, and leaves a missing list to oidc-provider', () => {
    expect(redirectUrisRefusal(['https://a.example/cb', 'http://b.example/cb'])).toMatch(/loopback/);
    expect(redirectUrisRefusal(['https://a.example/cb'])).toBeNull();
    expect(redirectUrisRefusal(undefined)).toBeNull();
  });
});
