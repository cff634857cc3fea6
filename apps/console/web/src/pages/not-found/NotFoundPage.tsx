import { Link, useParams } from 'react-router';
import { Page } from '../../components/Page';
import { AuthLayout } from '../layout/AuthLayout';

/** Unknown address: inside a workspace it keeps the frame, elsewhere a plain card. */
export function NotFoundPage() {
  const { workspaceId } = useParams();
  const body = (
    <p>
      Nothing lives at this address. <Link to={workspaceId ? `/w/${encodeURIComponent(workspaceId)}/tokens` : '/'}>Go to the console</Link>.
    </p>
  );
  return workspaceId ? <Page title="Page not found">{body}</Page> : <AuthLayout title="Page not found">{body}</AuthLayout>;
}
