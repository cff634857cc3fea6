import 'reflect-metadata';
import { DomainError } from '@sa/errors';
import { bearerSecret } from './bearer';

const TOKEN = 'mgpt_' + 'a'.repeat(43);

function rejected(header: string | string[] | undefined): DomainError {
  try {
    bearerSecret(header);
  } catch (err) {
    expect(err).toBeInstanceOf(DomainError);
    return err as DomainError;
  }
  throw new Error(`bearerSecret accepted ${JSON.stringify(header)}`);
}

describe('bearerSecret', () => {
  it.each([
    ['Bearer', `Bearer ${TOKEN}`],
    ['lower case', `bearer ${TOKEN}`],
    ['upper case', `BEARER ${TOKEN}`],
    ['mixed case', `bEaReR ${TOKEN}`],
    ['several spaces after the scheme', `Bearer    ${TOKEN}`],
    ['trailing spaces', `Bearer ${TOKEN}   `],
    ['a trailing tab', `Bearer ${TOKEN}\t`],
  ])('accepts %s', (_label, header) => {
    expect(bearerSecret(header)).toBe(TOKEN);
  });

  it('returns the secret as sent, without checking its shape (the verifier does)', () => {
    expect(bearerSecret('Bearer not-a-real-token')).toBe('not-a-real-token');
  });

  it('uses the first of repeated headers', () => {
    expect(bearerSecret([`Bearer ${TOKEN}`, 'Bearer other'])).toBe(TOKEN);
    expect(rejected(['Basic abc', `Bearer ${TOKEN}`]).code).toBe('unauthorized');
  });

  it.each([
    ['a missing header', undefined],
    ['an empty header', ''],
    ['an empty list of headers', []],
    ['the scheme alone', 'Bearer'],
    ['the scheme and spaces', 'Bearer   '],
    ['no space after the scheme', `Bearer${TOKEN}`],
    ['a tab after the scheme', `Bearer\t${TOKEN}`],
    ['a leading space', ` Bearer ${TOKEN}`],
    ['two values', `Bearer ${TOKEN} extra`],
    ['the token alone', TOKEN],
    ['Basic', 'Basic dXNlcjpwYXNz'],
    ['Token', `Token ${TOKEN}`],
    ['Bearer as a suffix', `XBearer ${TOKEN}`],
    ['a colon', `Bearer: ${TOKEN}`],
  ])('rejects %s as 401 unauthorized', (_label, header) => {
    const err = rejected(header as string | string[] | undefined);
    expect(err.code).toBe('unauthorized');
    expect(err.message).toBe('Send the API token as "Authorization: Bearer <token>"');
  });
});
