import { useEffect, type ReactNode } from 'react';
import { Brand } from './Brand';

/** The frame of the pages people see before signing in: a centred card. */
export function AuthLayout({ title, children, footer, wide = false }: { title: string; children: ReactNode; footer?: ReactNode; wide?: boolean }) {
  useEffect(() => {
    document.title = `${title} · Console`;
  }, [title]);
  return (
    <div className="auth">
      <header className="auth__brand">
        <Brand />
      </header>
      <main id="main" className={wide ? 'auth__card auth__card--wide' : 'auth__card'}>
        <h1 className="auth__title" tabIndex={-1}>
          {title}
        </h1>
        {children}
      </main>
      {footer ? <footer className="auth__footer">{footer}</footer> : null}
    </div>
  );
}
