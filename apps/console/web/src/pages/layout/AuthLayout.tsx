import { useEffect, type ReactNode } from 'react';
import { Brand } from './Brand';

/** The frame of the pages people see before signing in: a centred card. */
export function AuthLayout({ title, children, footer }: { title: string; children: ReactNode; footer?: ReactNode }) {
  useEffect(() => {
    document.title = `${title} · Console`;
  }, [title]);
  return (
    <div className="auth">
      <header className="auth__brand">
        <Brand />
      </header>
      <main id="main" className="auth__card">
        <h1 className="auth__title" tabIndex={-1}>
          {title}
        </h1>
        {children}
      </main>
      {footer ? <footer className="auth__footer">{footer}</footer> : null}
    </div>
  );
}
