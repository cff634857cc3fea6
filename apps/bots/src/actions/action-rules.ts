import { validateActionUrl, validateParametersSchema } from '@sa/actions';
import { ACTION_FORBIDDEN_HEADER_PREFIX, ACTION_FORBIDDEN_HEADERS, ActionMethod, ValidationIssue } from '@sa/contracts';

/*
 * The rules of an action's definition that span members or need more than a pattern (the
 * contract classes check each member alone): the URL with its placeholders, the parameters'
 * schema, the user id parameter, the header names. Each returns the issues of a 400, with paths
 * of the request body.
 */

/** A `{name}` placeholder of a URL (as @sa/actions fills them: a parameter name in braces). */
const PLACEHOLDER = /\{([a-zA-Z_][a-zA-Z0-9_]{0,63})\}/g;

/** The placeholders of a URL, in order, without repeats. */
export function urlPlaceholders(url: string): string[] {
  return [...new Set([...url.matchAll(PLACEHOLDER)].map((m) => m[1]!))];
}

/** Scheme, host and port (`https://shop.example`): where header values may be sent. Null: not a URL. */
export function originOf(url: string): string | null {
  try {
    return new URL(url.replace(PLACEHOLDER, 'x')).origin;
  } catch {
    return null;
  }
}

/** https only (the contract's pattern says so too), and what @sa/actions can call: placeholders after the host, no credentials. */
export function urlIssues(url: string): ValidationIssue[] {
  const problems = /^https:\/\//i.test(url) ? validateActionUrl(url) : ['The URL must start with https://'];
  return problems.map((message) => ({ code: 'invalid_format', path: ['body', 'url'], message: `url: ${message}` }));
}

/** The properties of a parameters schema (an object schema's `properties`). */
function propertiesOf(parameters: Record<string, unknown>): Record<string, unknown> {
  const p = parameters['properties'];
  return p && typeof p === 'object' && !Array.isArray(p) ? (p as Record<string, unknown>) : {};
}

const has = (o: Record<string, unknown>, key: string) => Object.prototype.hasOwnProperty.call(o, key);

/**
 * The definition as a whole: the URL, the schema (validateParametersSchema of @sa/actions), every
 * placeholder of the URL a property, and the user id parameter a string property of a
 * verified-only action.
 */
export function definitionIssues(d: { url: string; parameters: Record<string, unknown>; verified_only: boolean; user_id_param: string | null }): ValidationIssue[] {
  const issues: ValidationIssue[] = [...urlIssues(d.url)];
  const problems = validateParametersSchema(d.parameters);
  if (problems.length) {
    issues.push(...problems.map((message) => ({ code: 'invalid_value', path: ['body', 'parameters'], message: `parameters: ${message}` })));
    return issues;
  }
  const properties = propertiesOf(d.parameters);
  for (const name of urlPlaceholders(d.url)) {
    if (!has(properties, name)) issues.push({ code: 'invalid_value', path: ['body', 'url'], message: `url: the placeholder {${name}} is not a property of parameters` });
  }
  if (d.user_id_param !== null) {
    const path = ['body', 'user_id_param'];
    const prop = has(properties, d.user_id_param) ? (properties[d.user_id_param] as Record<string, unknown> | null) : undefined;
    if (!d.verified_only) issues.push({ code: 'invalid_value', path, message: "user_id_param needs verified_only: true (only a verified visitor's id may be passed)" });
    if (prop === undefined) issues.push({ code: 'invalid_value', path, message: `user_id_param: ${d.user_id_param} is not a property of parameters` });
    else if (!prop || prop['type'] !== 'string') issues.push({ code: 'invalid_value', path, message: `user_id_param: the property ${d.user_id_param} must be of type string` });
  }
  return issues;
}

/** Header names: none the HTTP client sets itself or a hop-by-hop one, none twice (case-insensitive). */
export function headerNameIssues(names: readonly string[]): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const seen = new Set<string>();
  names.forEach((name, i) => {
    const lower = name.toLowerCase();
    const path = ['body', 'headers', i, 'name'];
    if (ACTION_FORBIDDEN_HEADERS.includes(lower) || lower.startsWith(ACTION_FORBIDDEN_HEADER_PREFIX)) issues.push({ code: 'invalid_value', path, message: `headers: ${name} is set by the HTTP client and may not be given` });
    else if (seen.has(lower)) issues.push({ code: 'invalid_value', path, message: `headers: ${name} is given twice` });
    seen.add(lower);
  });
  return issues;
}

/** Whether the visitor confirms a call when the owner did not say: for anything but GET. */
export function defaultConfirm(method: ActionMethod): boolean {
  return method !== 'GET';
}

/**
 * The header list of an update: each entry's new value, or the value stored under its name
 * (case-insensitive). `kept`: some value came from storage; `issues`: entries without a value and
 * none stored.
 */
export function mergeHeaders(
  given: readonly { name: string; value?: string }[],
  stored: () => Record<string, string>,
): { headers: [string, string][]; kept: boolean; issues: ValidationIssue[] } {
  const headers: [string, string][] = [];
  const issues: ValidationIssue[] = [];
  let kept = false;
  given.forEach((h, i) => {
    if (h.value !== undefined) {
      headers.push([h.name, h.value]);
      return;
    }
    const values = stored();
    const key = Object.keys(values).find((k) => k.toLowerCase() === h.name.toLowerCase());
    if (key === undefined) {
      issues.push({ code: 'required', path: ['body', 'headers', i, 'value'], message: `headers: give a value for ${h.name} (none is stored)` });
      return;
    }
    headers.push([h.name, values[key]!]);
    kept = true;
  });
  return { headers, kept, issues };
}
