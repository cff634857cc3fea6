import { loggedPath } from './logged-path';

describe('loggedPath (access log lines name no bearer secret)', () => {
  const sid = 'Yq3v0W8d2hZ1n5Kf7c9Xb4Rt6Lm0Pa2s';

  it.each([
    [`/v1/conversations/${sid}`, '/v1/conversations/[redacted]'],
    [`/api/workspaces/w1/conversations/${sid}`, '/api/workspaces/w1/conversations/[redacted]'],
    [`/api/workspaces/w1/handoffs/${sid}`, '/api/workspaces/w1/handoffs/[redacted]'],
    [`/api/workspaces/w1/handoffs/${sid}/take`, '/api/workspaces/w1/handoffs/[redacted]/take'],
    [`/api/workspaces/w1/handoffs/${sid}/reply?x=${sid}`, '/api/workspaces/w1/handoffs/[redacted]/reply'],
    [`/api/invitations/${sid}/accept`, '/api/invitations/[redacted]/accept'],
    [`/oauth/consent/${sid}`, '/oauth/consent/[redacted]'],
    [`/oauth/authorize/${sid}`, '/oauth/authorize/[redacted]'],
    [`/api/oauth/interactions/${sid}/confirm`, '/api/oauth/interactions/[redacted]/confirm'],
    [`/V1/CONVERSATIONS/${sid}`, '/V1/CONVERSATIONS/[redacted]'],
  ])('%s is logged as %s', (url, expected) => {
    expect(loggedPath(url)).toBe(expected);
    expect(loggedPath(url)).not.toContain(sid);
  });

  it('keeps the paths that hold no secret, without their query', () => {
    expect(loggedPath('/v1/conversations?chatbotId=b1')).toBe('/v1/conversations');
    expect(loggedPath('/api/workspaces/w1/handoffs')).toBe('/api/workspaces/w1/handoffs');
    expect(loggedPath('/v1/bookings/7f1c')).toBe('/v1/bookings/7f1c');
    expect(loggedPath('/oauth/authorize?client_id=c&state=s')).toBe('/oauth/authorize');
  });
});
