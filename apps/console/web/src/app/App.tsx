import { QueryClientProvider } from '@tanstack/react-query';
import { useState } from 'react';
import { createBrowserRouter, Navigate, Outlet, RouterProvider, useHref, useNavigate } from 'react-router';
import { RouterProvider as AriaRouterProvider } from 'react-aria-components';
import { useSession } from '../api/session';
import { Loading, ErrorMessage } from '../components/Messages';
import { AcceptInvitationPage } from '../pages/accept-invitation/AcceptInvitationPage';
import { AnalyticsPage } from '../pages/analytics/AnalyticsPage';
import { AuditPage } from '../pages/audit/AuditPage';
import { BotPage } from '../pages/bots/BotPage';
import { BotsPage } from '../pages/bots/BotsPage';
import { BookingsPage } from '../pages/bookings/BookingsPage';
import { ConversationsPage } from '../pages/conversations/ConversationsPage';
import { EvaluationsPage } from '../pages/evaluations/EvaluationsPage';
import { LeadsPage } from '../pages/leads/LeadsPage';
import { ConnectionsPage } from '../pages/connections/ConnectionsPage';
import { ConsentPage } from '../pages/consent/ConsentPage';
import { ConsoleLayout } from '../pages/layout/ConsoleLayout';
import { ForgotPasswordPage } from '../pages/forgot-password/ForgotPasswordPage';
import { HandoffPage } from '../pages/handoff/HandoffPage';
import { MembersPage } from '../pages/members/MembersPage';
import { NoWorkspacePage } from '../pages/no-workspace/NoWorkspacePage';
import { NotFoundPage } from '../pages/not-found/NotFoundPage';
import { ResetPasswordPage } from '../pages/reset-password/ResetPasswordPage';
import { SignInPage } from '../pages/sign-in/SignInPage';
import { SetupPage } from '../pages/setup/SetupPage';
import { GetStartedPage } from '../pages/get-started/GetStartedPage';
import { useSetupNeeded } from '../api/setup';
import { TokensPage } from '../pages/tokens/TokensPage';
import { WebhookPage } from '../pages/webhook/WebhookPage';
import { WebhooksPage } from '../pages/webhooks/WebhooksPage';
import { KnowledgePage } from '../pages/knowledge/KnowledgePage';
import { ModelsPage } from '../pages/models/ModelsPage';
import { WidgetPage } from '../pages/widget/WidgetPage';
import { WorkspacePage } from '../pages/workspace/WorkspacePage';
import { createQueryClient } from './query-client';

/** Lets react-aria links navigate through the router. */
function Root() {
  const navigate = useNavigate();
  return (
    <AriaRouterProvider navigate={navigate} useHref={useHref}>
      <Outlet />
    </AriaRouterProvider>
  );
}

/** `/`: the first workspace's tokens, or the setup (an installation nobody set up yet), or the sign-in page. */
function Home() {
  const session = useSession();
  const setup = useSetupNeeded();
  if (session.isPending || (!session.data && setup.isPending)) return <Loading what="the console" />;
  if (session.isError) return <ErrorMessage error={session.error} />;
  if (!session.data) return <Navigate to={setup.data ? '/setup' : '/sign-in'} replace />;
  const first = session.data.workspaces[0];
  return first ? <Navigate to={`/w/${encodeURIComponent(first.id)}/tokens`} replace /> : <NoWorkspacePage />;
}

const router = createBrowserRouter([
  {
    element: <Root />,
    children: [
      { path: '/', element: <Home /> },
      { path: '/sign-in', element: <SignInPage /> },
      { path: '/setup', element: <SetupPage /> },
      { path: '/forgot-password', element: <ForgotPasswordPage /> },
      { path: '/reset-password', element: <ResetPasswordPage /> },
      { path: '/accept-invitation', element: <AcceptInvitationPage /> },
      { path: '/oauth/consent/:uid', element: <ConsentPage /> },
      {
        path: '/w/:workspaceId',
        element: <ConsoleLayout />,
        children: [
          { index: true, element: <Navigate to="tokens" replace /> },
          { path: 'get-started', element: <GetStartedPage /> },
          { path: 'tokens', element: <TokensPage /> },
          { path: 'webhooks', element: <WebhooksPage /> },
          { path: 'webhooks/:webhookId', element: <WebhookPage /> },
          { path: 'widget', element: <WidgetPage /> },
          { path: 'bots', element: <BotsPage /> },
          { path: 'bots/:botId', element: <BotPage /> },
          { path: 'analytics', element: <AnalyticsPage /> },
          { path: 'evaluations', element: <EvaluationsPage /> },
          { path: 'knowledge', element: <KnowledgePage /> },
          { path: 'models', element: <ModelsPage /> },
          { path: 'connections', element: <ConnectionsPage /> },
          { path: 'members', element: <MembersPage /> },
          { path: 'workspace', element: <WorkspacePage /> },
          { path: 'audit', element: <AuditPage /> },
          { path: 'conversations', element: <ConversationsPage /> },
          { path: 'leads', element: <LeadsPage /> },
          { path: 'bookings', element: <BookingsPage /> },
          { path: 'handoff', element: <HandoffPage /> },
          { path: '*', element: <NotFoundPage /> },
        ],
      },
      { path: '*', element: <NotFoundPage /> },
    ],
  },
]);

export function App() {
  const [queryClient] = useState(createQueryClient);
  return (
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
    </QueryClientProvider>
  );
}
