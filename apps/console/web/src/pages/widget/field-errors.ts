import { ApiError } from '../../api/errors';

/**
 * The API's validation issues of a widget write, by the name of the form field they belong to
 * (react-aria shows each next to its field, with aria-invalid and aria-describedby): `path` is
 * `["body", "allowed_origins", 2]` or `["body", "theme", "color"]`.
 */
export function widgetFieldErrors(error: unknown): Record<string, string> {
  if (!(error instanceof ApiError)) return {};
  const out: Record<string, string[]> = {};
  for (const issue of error.issues) {
    const [where, first, second] = issue.path[0] === 'body' ? issue.path : ['body', ...issue.path];
    void where;
    if (first === 'allowed_origins') {
      const line = second !== undefined && /^\d+$/.test(second) ? `Line ${Number(second) + 1}: ` : '';
      (out['allowed_origins'] ??= []).push(`${line}${issue.message}`);
    } else if (first === 'theme' && second) {
      (out[second] ??= []).push(issue.message);
    }
  }
  return Object.fromEntries(Object.entries(out).map(([k, v]) => [k, v.join(' ')]));
}
