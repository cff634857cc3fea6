import { useEffect, type ReactNode } from 'react';

/** A page of the console: its title (document title too), a short description, its content. */
export function Page({ title, description, actions, children }: { title: string; description?: ReactNode; actions?: ReactNode; children: ReactNode }) {
  useEffect(() => {
    document.title = `${title} · Console`;
  }, [title]);
  return (
    <>
      <div className="page-header">
        <div>
          <h1 tabIndex={-1} className="page-header__title">
            {title}
          </h1>
          {description ? <p className="page-header__description">{description}</p> : null}
        </div>
        {actions ? <div className="page-header__actions">{actions}</div> : null}
      </div>
      {children}
    </>
  );
}

export function Section({ title, id, children, description }: { title: string; id: string; children: ReactNode; description?: ReactNode }) {
  return (
    <section className="section" aria-labelledby={id}>
      <h2 id={id} className="section__title">
        {title}
      </h2>
      {description ? <p className="section__description">{description}</p> : null}
      {children}
    </section>
  );
}
