import { ActionInputError } from './action-input-error';
import { describeValue, isPlainObject } from './parameters-schema';

export type ActionHttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** How an action calls the customer's API. Header values are in clear (decrypted by the caller). */
export interface ActionRequestSpec {
  method: ActionHttpMethod;
  /** Absolute URL; `{name}` placeholders in the path or query take the input member `name`. */
  url: string;
  headers: Record<string, string>;
}

/** One HTTP request, ready to send. Header names are lower case. */
export interface ActionRequest {
  url: string;
  method: ActionHttpMethod;
  headers: Record<string, string>;
  body?: string;
}

const METHODS: readonly string[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
const ACCEPT = 'application/json, text/plain;q=0.9, */*;q=0.1';
const MAX_URL_LENGTH = 2048;
const PLACEHOLDER = /\{([a-zA-Z_][a-zA-Z0-9_]{0,63})\}/g;
/** scheme://authority, then the path, query and fragment (each possibly empty). */
const ABSOLUTE_URL = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\/([^/?#]*)(.*)$/s;
/** An HTTP header name (RFC 9110 token). */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** What Node accepts in a header value: one line, no control characters but tab. */
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

interface UrlTemplate {
  /** scheme://authority, as written. */
  origin: string;
  path: string;
  /** Without the "?"; null when there is none. */
  query: string | null;
  /** The URL with every placeholder filled with "x", parsed. */
  sample: URL;
}

function parseTemplate(url: unknown): UrlTemplate | string {
  if (typeof url !== 'string' || url === '') return 'The URL is missing';
  if (url.length > MAX_URL_LENGTH) return `The URL is longer than ${MAX_URL_LENGTH} characters`;
  const m = ABSOLUTE_URL.exec(url);
  if (!m) return 'The URL must be absolute, like https://api.example.com/orders/{order_id}';
  const [, scheme, authority, rest] = m;
  if (!['http', 'https'].includes(scheme.toLowerCase())) return 'The URL must start with https://';
  if (authority.includes('{') || authority.includes('}')) return 'Placeholders such as {order_id} may only appear after the host, in the path or the query';
  if (authority === '') return 'The URL has no host';
  const withoutFragment = rest.includes('#') ? rest.slice(0, rest.indexOf('#')) : rest;
  const stray = withoutFragment.replace(PLACEHOLDER, '');
  if (stray.includes('{') || stray.includes('}')) return 'The URL has a brace that is not a placeholder; a placeholder is a parameter name in braces, like {order_id}';
  let sample: URL;
  try {
    sample = new URL(`${scheme}://${authority}${withoutFragment.replace(PLACEHOLDER, 'x')}`);
  } catch {
    return 'The URL is not valid';
  }
  if (sample.username !== '' || sample.password !== '') return 'The URL must not contain a user name or password; send credentials in a header';
  const q = withoutFragment.indexOf('?');
  return {
    origin: `${scheme}://${authority}`,
    path: q === -1 ? withoutFragment : withoutFragment.slice(0, q),
    query: q === -1 ? null : withoutFragment.slice(q + 1),
    sample,
  };
}

/**
 * Checks an action's URL as its owner writes it: absolute http(s), placeholders `{name}` only in
 * the path or the query, no credentials. Returns the problems; none when it is fine. Whether
 * http (not https) may be called is decided when calling (executeAction's allowHttp).
 */
export function validateActionUrl(url: unknown): string[] {
  const template = parseTemplate(url);
  return typeof template === 'string' ? [template] : [];
}

/** A member's value as URL text: strings as they are, objects and arrays as JSON, the rest String(). */
function asText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value !== null && typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

const DOT_SEGMENTS = new Set(['.', '..']);

/**
 * Builds the request of one action call. `{name}` placeholders in the URL's path and query take
 * the input member `name` (URL-encoded, so a value stays inside its path segment) and that member
 * is not sent again; for GET and DELETE the other members go in the query string (arrays as
 * repeated keys, objects as JSON, null left out), for POST, PUT and PATCH in a JSON body.
 * Throws ActionInputError when the input lacks a member the URL needs, or when the spec's URL,
 * method or headers cannot be used (the message never carries a header value).
 */
export function buildActionRequest(spec: ActionRequestSpec, input: unknown): ActionRequest {
  if (!isPlainObject(input)) throw new ActionInputError(`The input must be an object (got ${describeValue(input)})`);
  if (!METHODS.includes(spec.method)) throw new ActionInputError(`The method must be one of ${METHODS.join(', ')}`);
  const template = parseTemplate(spec.url);
  if (typeof template === 'string') throw new ActionInputError(template);

  const used = new Set<string>();
  const fill = (text: string): string =>
    text.replace(PLACEHOLDER, (_match, name: string) => {
      const value = Object.hasOwn(input, name) ? input[name] : undefined;
      if (value === undefined || value === null) throw new ActionInputError(`The URL needs "${name}", which the input does not have`);
      used.add(name);
      return encodeURIComponent(asText(value));
    });
  const path = template.path
    .split('/')
    .map((segment) => {
      const filled = fill(segment);
      // "." and ".." are not encoded by encodeURIComponent, and would move the request elsewhere.
      if (filled !== segment && DOT_SEGMENTS.has(filled)) throw new ActionInputError(`The input would make "${filled}" a segment of the URL path, which is not allowed`);
      return filled;
    })
    .join('/');
  const query = template.query === null ? null : fill(template.query);

  const method = spec.method;
  const rest = Object.entries(input).filter(([name]) => !used.has(name));
  let body: string | undefined;
  const extra: string[] = [];
  if (method === 'GET' || method === 'DELETE') {
    const add = (name: string, value: unknown): void => {
      if (value !== undefined && value !== null) extra.push(`${encodeURIComponent(name)}=${encodeURIComponent(asText(value))}`);
    };
    for (const [name, value] of rest) {
      if (Array.isArray(value)) value.forEach((item) => add(name, item));
      else add(name, value);
    }
  } else {
    body = JSON.stringify(Object.fromEntries(rest));
  }
  const search = [query, ...extra].filter((part): part is string => part !== null && part !== '').join('&');
  const built = `${template.origin}${path}${search === '' && query === null ? '' : `?${search}`}`;

  let url: URL;
  try {
    url = new URL(built);
  } catch {
    throw new ActionInputError('The input makes the URL invalid');
  }
  if (url.protocol !== template.sample.protocol || url.host !== template.sample.host) throw new ActionInputError('The input would change the URL\'s host, which is not allowed');

  const headers: Record<string, string> = { accept: ACCEPT };
  if (body !== undefined) headers['content-type'] = 'application/json';
  for (const [name, value] of Object.entries(spec.headers ?? {})) {
    if (!HEADER_NAME.test(name)) throw new ActionInputError(`The header name ${JSON.stringify(name.slice(0, 40))} is not valid`);
    if (typeof value !== 'string' || !HEADER_VALUE.test(value)) throw new ActionInputError(`The value of the header ${name} is not valid (it must be one line of text)`);
    headers[name.toLowerCase()] = value;
  }
  return body === undefined ? { url: url.href, method, headers } : { url: url.href, method, headers, body };
}
