import { fieldErrors } from '../../lib/field-errors';

/**
 * The API's validation issues of a widget write, by form field: `["body", "allowed_origins", 2]`
 * belongs to the origins (its line said), `["body", "theme", "color"]` to the colour field.
 */
export function widgetFieldErrors(error: unknown): Record<string, string> {
  return fieldErrors(error, ([first, second]) => (first === 'allowed_origins' ? first : first === 'theme' ? second : null));
}
