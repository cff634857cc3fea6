import { ApiError } from '../api/errors';

/**
 * The API's validation issues of a write, by the name of the form field they belong to (react-aria
 * shows each next to its field, with aria-invalid and aria-describedby). `field` names the field
 * of an issue's path (without its leading "body"), or null to leave the issue to the form's
 * message; an issue of the n-th item of a list (one item per line in the form) says "Line n:".
 */
export function fieldErrors(error: unknown, field: (path: string[]) => string | null | undefined): Record<string, string> {
  if (!(error instanceof ApiError)) return {};
  const out: Record<string, string[]> = {};
  for (const issue of error.issues) {
    const path = issue.path[0] === 'body' ? issue.path.slice(1) : issue.path;
    const name = field(path);
    if (!name) continue;
    const index = path.slice(1).find((p) => /^\d+$/.test(p));
    (out[name] ??= []).push(`${index !== undefined ? `Line ${Number(index) + 1}: ` : ''}${issue.message}`);
  }
  return Object.fromEntries(Object.entries(out).map(([k, v]) => [k, v.join(' ')]));
}
