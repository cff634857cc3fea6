import { DomainError } from '@sa/errors';

export class NotSignedIn extends DomainError {
  constructor(message = 'Sign in first') {
    super('not_signed_in', message);
  }
}

/** The same answer for an unknown e-mail and a wrong password. */
export class InvalidCredentials extends DomainError {
  constructor() {
    super('invalid_credentials', 'The e-mail or password is not correct');
  }
}

export class InvalidToken extends DomainError {
  constructor(what = 'link') {
    super('invalid_token', `This ${what} is not valid: it is unknown, was already used or has expired`);
  }
}

export class CsrfFailed extends DomainError {
  constructor(reason: string) {
    super('csrf_failed', `Cross-site request refused: ${reason}`);
  }
}

export class ForbiddenRole extends DomainError {
  constructor(message = 'Your role in this workspace does not allow this') {
    super('forbidden_role', message);
  }
}

export class LastOwner extends DomainError {
  constructor() {
    super('last_owner', 'The last owner of a workspace cannot be removed or demoted; make someone else owner first');
  }
}

export class TooManyAttempts extends DomainError {
  constructor(readonly retryAfterSeconds: number) {
    super('too_many_attempts', `Too many failed sign-ins; retry in ${retryAfterSeconds} s`, { retry_after: retryAfterSeconds });
  }
}
