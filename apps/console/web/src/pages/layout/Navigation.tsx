import { NavLink } from 'react-router';

const ENTRIES = [
  { to: 'get-started', label: 'Get started' },
  { to: 'bots', label: 'Bots' },
  { to: 'knowledge', label: 'Knowledge' },
  { to: 'models', label: 'Models' },
  { to: 'conversations', label: 'Conversations' },
  { to: 'handoff', label: 'Handoff' },
  { to: 'leads', label: 'Leads' },
  { to: 'bookings', label: 'Bookings' },
  { to: 'analytics', label: 'Analytics' },
  { to: 'evaluations', label: 'Evaluations' },
  { to: 'widget', label: 'Widget' },
  { to: 'tokens', label: 'API tokens' },
  { to: 'webhooks', label: 'Webhooks' },
  { to: 'connections', label: 'Connections' },
  { to: 'members', label: 'Members' },
  { to: 'workspace', label: 'Workspace' },
  { to: 'audit', label: 'Audit log' },
];

/** The console's sections; the current one is marked aria-current="page". */
export function Navigation({ workspaceId }: { workspaceId: string }) {
  return (
    <nav className="sidenav" aria-label="Console">
      <ul>
        {ENTRIES.map((e) => (
          <li key={e.to}>
            <NavLink to={`/w/${encodeURIComponent(workspaceId)}/${e.to}`} className="sidenav__link">
              {e.label}
            </NavLink>
          </li>
        ))}
      </ul>
    </nav>
  );
}
