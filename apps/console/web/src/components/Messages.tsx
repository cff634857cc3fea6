import type { ReactNode } from 'react';
import { errorMessage } from '../api/errors';
import { ApiError } from '../api/errors';

/** A failure, announced (role alert), with the API's message and its validation issues. */
export function ErrorMessage({ error, title }: { error: unknown; title?: string }) {
  if (!error) return null;
  const issues = error instanceof ApiError ? error.issues : [];
  return (
    <div className="notice notice--error" role="alert">
      <span className="notice__icon" aria-hidden="true" />
      <div>
        {title ? <p className="notice__title">{title}</p> : null}
        <p>{errorMessage(error)}</p>
        {issues.length > 0 ? (
          <ul className="notice__list">
            {issues.map((issue, i) => (
              <li key={i}>{issue.path.length ? `${issue.path.join('.')}: ${issue.message}` : issue.message}</li>
            ))}
          </ul>
        ) : null}
      </div>
    </div>
  );
}

/** A quiet confirmation (role status). */
export function SuccessMessage({ children }: { children: ReactNode }) {
  return (
    <div className="notice notice--success" role="status">
      <span className="notice__icon" aria-hidden="true" />
      <div>{children}</div>
    </div>
  );
}

export function InfoMessage({ children, tone = 'info' }: { children: ReactNode; tone?: 'info' | 'warning' }) {
  return (
    <div className={`notice notice--${tone}`}>
      <span className="notice__icon" aria-hidden="true" />
      <div>{children}</div>
    </div>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <p className="loading" role="status">
      Loading {what}…
    </p>
  );
}
