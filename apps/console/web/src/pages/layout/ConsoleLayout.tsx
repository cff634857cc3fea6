import { useEffect, useMemo, useRef } from 'react';
import { Navigate, Outlet, useLocation, useParams } from 'react-router';
import { isSigningOut, useSession } from '../../api/session';
import { WorkspaceContext, type CurrentWorkspace } from '../../app/workspace-context';
import { ErrorMessage, Loading } from '../../components/Messages';
import { Navigation } from './Navigation';
import { AccountActions } from './AccountActions';
import { WorkspaceSwitcher } from './WorkspaceSwitcher';
import { Brand } from './Brand';
import { EvalAlertsBanner } from './EvalAlertsBanner';

/** Moves focus to the new page's heading after an in-app navigation (not on the first load). */
function useFocusHeadingOnNavigation() {
  const { pathname } = useLocation();
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    document.querySelector<HTMLElement>('main h1')?.focus();
  }, [pathname]);
}

/** The signed-in frame: header (workspace switcher, sign-out), navigation, and the page. */
export function ConsoleLayout() {
  const { workspaceId = '' } = useParams();
  const location = useLocation();
  const session = useSession();
  useFocusHeadingOnNavigation();

  const current = useMemo<CurrentWorkspace | null>(() => {
    const workspace = session.data?.workspaces.find((w) => w.id === workspaceId);
    if (!session.data || !workspace) return null;
    return { workspace, session: session.data, role: workspace.role, canManage: workspace.role !== 'member', isOwner: workspace.role === 'owner' };
  }, [session.data, workspaceId]);

  if (session.isPending) return <Loading what="your session" />;
  if (session.isError) return <ErrorMessage error={session.error} />;
  if (!session.data) {
    if (isSigningOut()) return <Navigate to="/sign-in" replace />;
    const next = location.pathname + location.search;
    return <Navigate to={`/sign-in?next=${encodeURIComponent(next)}`} replace />;
  }

  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <Brand />
        <div className="topbar__end">
          <WorkspaceSwitcher workspaces={session.data.workspaces} currentId={workspaceId} />
          <AccountActions person={session.data.person} />
        </div>
      </header>
      <div className="shell__body">
        {current ? <Navigation workspaceId={workspaceId} /> : null}
        <main id="main" className="main" tabIndex={-1}>
          {current ? (
            <WorkspaceContext.Provider value={current}>
              <EvalAlertsBanner workspaceId={workspaceId} />
              <Outlet />
            </WorkspaceContext.Provider>
          ) : (
            <>
              <h1 tabIndex={-1}>Workspace not found</h1>
              <p>You are not a member of this workspace, or it does not exist. Choose one of your workspaces above.</p>
            </>
          )}
        </main>
      </div>
    </div>
  );
}
