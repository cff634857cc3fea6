import { ActionInputError } from './action-input-error';
import { ActionRequestSpec, buildActionRequest, validateActionUrl } from './action-request';

const ACCEPT = 'application/json, text/plain;q=0.9, */*;q=0.1';

function spec(overrides: Partial<ActionRequestSpec> = {}): ActionRequestSpec {
  return { method: 'GET', url: 'https://api.example.com/orders/{order_id}', headers: {}, ...overrides };
}

function inputError(fn: () => unknown): ActionInputError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ActionInputError);
    return err as ActionInputError;
  }
  throw new Error('expected an ActionInputError');
}

describe('buildActionRequest: placeholders', () => {
  it('fills path placeholders with the encoded member, which is then not sent again', () => {
    expect(buildActionRequest(spec(), { order_id: 'A 1/é?#&', verbose: true })).toEqual({
      url: 'https://api.example.com/orders/A%201%2F%C3%A9%3F%23%26?verbose=true',
      method: 'GET',
      headers: { accept: ACCEPT },
    });
  });

  it('keeps ../ inside its path segment', () => {
    const req = buildActionRequest(spec({ url: 'https://api.example.com/v1/orders/{order_id}/items' }), { order_id: '../../admin' });
    expect(req.url).toBe('https://api.example.com/v1/orders/..%2F..%2Fadmin/items');
    expect(new URL(req.url).pathname).toBe('/v1/orders/..%2F..%2Fadmin/items');
  });

  it('refuses a value that would be a dot segment of the path', () => {
    for (const order_id of ['.', '..']) {
      expect(inputError(() => buildActionRequest(spec({ url: 'https://api.example.com/v1/orders/{order_id}/items' }), { order_id })).message).toBe(
        `The input would make "${order_id}" a segment of the URL path, which is not allowed`,
      );
    }
    // Inside a longer segment dots are harmless.
    expect(buildActionRequest(spec({ url: 'https://api.example.com/files/{name}.json' }), { name: '..' }).url).toBe('https://api.example.com/files/...json');
  });

  it('fills query placeholders, numbers and objects included', () => {
    const req = buildActionRequest(spec({ url: 'https://api.example.com/search?q={query}&page={page}&fixed=1' }), { query: 'a&b=c', page: 2 });
    expect(req.url).toBe('https://api.example.com/search?q=a%26b%3Dc&page=2&fixed=1');
    const obj = buildActionRequest(spec({ url: 'https://api.example.com/x/{filter}' }), { filter: { a: 1 } });
    expect(obj.url).toBe('https://api.example.com/x/%7B%22a%22%3A1%7D');
  });

  it('throws ActionInputError when a placeholder has no member', () => {
    expect(inputError(() => buildActionRequest(spec(), { other: 1 })).message).toBe('The URL needs "order_id", which the input does not have');
    expect(inputError(() => buildActionRequest(spec(), { order_id: null })).message).toBe('The URL needs "order_id", which the input does not have');
    // An inherited name is not a member.
    expect(inputError(() => buildActionRequest(spec({ url: 'https://api.example.com/{constructor}' }), {})).message).toBe('The URL needs "constructor", which the input does not have');
  });

  it('never takes a placeholder in the scheme, host or port', () => {
    for (const url of ['https://{host}/x', 'https://api.{tenant}.example.com/x', 'https://api.example.com:{port}/x', 'https://{user}@api.example.com/', 'https://api.example.com{path}']) {
      expect(inputError(() => buildActionRequest(spec({ url }), { host: 'a', tenant: 'b', port: 1, user: 'u', path: '/p' })).message).toBe(
        'Placeholders such as {order_id} may only appear after the host, in the path or the query',
      );
    }
    // With no host, the parser would take the first path segment as the host.
    expect(inputError(() => buildActionRequest(spec({ url: 'https:///{host}/x' }), { host: 'evil.example' })).message).toBe('The URL has no host');
    expect(inputError(() => buildActionRequest(spec({ url: '{scheme}://api.example.com/' }), { scheme: 'https' })).message).toMatch(/must be absolute/);
  });

  it('refuses unusable specs', () => {
    expect(inputError(() => buildActionRequest(spec({ url: 'ftp://api.example.com/' }), {})).message).toBe('The URL must start with https://');
    expect(inputError(() => buildActionRequest(spec({ url: '/relative/{x}' }), { x: 1 })).message).toMatch(/must be absolute/);
    expect(inputError(() => buildActionRequest(spec({ url: 'https://api.example.com/{not-a-name}' }), {})).message).toMatch(/brace that is not a placeholder/);
    expect(inputError(() => buildActionRequest(spec({ method: 'TRACE' as never }), { order_id: '1' })).message).toBe('The method must be one of GET, POST, PUT, PATCH, DELETE');
    expect(inputError(() => buildActionRequest(spec(), ['1'])).message).toBe('The input must be an object (got an array)');
  });
});

describe('buildActionRequest: query or body', () => {
  const input = { order_id: 'A1', ids: [1, 'two', null], filter: { open: true }, note: null, flag: false, text: 'a b' };

  it.each(['GET', 'DELETE'] as const)('%s sends the other members in the query string', (method) => {
    const req = buildActionRequest(spec({ method, url: 'https://api.example.com/orders/{order_id}?v=2' }), input);
    expect(req).toEqual({
      url: 'https://api.example.com/orders/A1?v=2&ids=1&ids=two&filter=%7B%22open%22%3Atrue%7D&flag=false&text=a%20b',
      method,
      headers: { accept: ACCEPT },
    });
    expect(new URL(req.url).searchParams.getAll('ids')).toEqual(['1', 'two']);
    expect(new URL(req.url).searchParams.get('filter')).toBe('{"open":true}');
  });

  it.each(['POST', 'PUT', 'PATCH'] as const)('%s sends the other members as a JSON body', (method) => {
    const req = buildActionRequest(spec({ method }), input);
    expect(req).toEqual({
      url: 'https://api.example.com/orders/A1',
      method,
      headers: { accept: ACCEPT, 'content-type': 'application/json' },
      body: JSON.stringify({ ids: [1, 'two', null], filter: { open: true }, note: null, flag: false, text: 'a b' }),
    });
  });

  it('sends an empty JSON object when every member went into the URL', () => {
    expect(buildActionRequest(spec({ method: 'POST' }), { order_id: 'A1' }).body).toBe('{}');
  });
});

describe('buildActionRequest: headers', () => {
  it("adds the caller's headers; ours win only when the caller does not set them", () => {
    const req = buildActionRequest(spec({ method: 'POST', headers: { Authorization: 'Bearer s3cret', 'X-Tenant': 'acme' } }), { order_id: '1' });
    expect(req.headers).toEqual({ accept: ACCEPT, 'content-type': 'application/json', authorization: 'Bearer s3cret', 'x-tenant': 'acme' });
    const own = buildActionRequest(spec({ method: 'POST', headers: { Accept: 'application/xml', 'Content-Type': 'application/vnd.api+json' } }), { order_id: '1' });
    expect(own.headers).toEqual({ accept: 'application/xml', 'content-type': 'application/vnd.api+json' });
  });

  it('refuses invalid header names and values, never quoting the value', () => {
    expect(inputError(() => buildActionRequest(spec({ headers: { 'Bad Name': 'x' } }), { order_id: '1' })).message).toBe('The header name "Bad Name" is not valid');
    const err = inputError(() => buildActionRequest(spec({ headers: { 'X-Key': 'secret-value\r\nX-Injected: 1' } }), { order_id: '1' }));
    expect(err.message).toBe('The value of the header X-Key is not valid (it must be one line of text)');
    expect(err.message).not.toContain('secret-value');
  });
});

describe('validateActionUrl', () => {
  it('accepts good URLs and explains bad ones', () => {
    expect(validateActionUrl('https://api.example.com/orders/{order_id}?expand={expand}')).toEqual([]);
    expect(validateActionUrl('http://api.example.com/')).toEqual([]);
    expect(validateActionUrl('https://{tenant}.example.com/')).toEqual(['Placeholders such as {order_id} may only appear after the host, in the path or the query']);
    expect(validateActionUrl('https://user:pw@api.example.com/')).toEqual(['The URL must not contain a user name or password; send credentials in a header']);
    expect(validateActionUrl('https://exa mple.com/')).toEqual(['The URL is not valid']);
    expect(validateActionUrl(`https://api.example.com/${'a'.repeat(2100)}`)).toEqual(['The URL is longer than 2048 characters']);
    expect(validateActionUrl(42)).toEqual(['The URL is missing']);
  });
});
