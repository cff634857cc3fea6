/**
 * An OAuth client's name as the client itself asserted it (registration or metadata document):
 * rendered as text and always marked "Unverified", never presented as trustworthy.
 */
export function ClientName({ name, id }: { name: string | null | undefined; id?: string }) {
  const shown = name && name.trim() ? name : 'An application without a name';
  return (
    <span className="client-name">
      <span id={id} className="client-name__text">
        {shown}
      </span>
      <span className="badge badge--unverified">
        <span className="badge__icon" aria-hidden="true" />
        Unverified
      </span>
    </span>
  );
}
