import { NavLink } from 'react-router';

const ENTRIES = [
  { to: 'bots', label: 'Bots' },
  { to: 'analytics', label: 'Analytics' },
  { to: 'conversations', label: 'Conversations' },
  { to: 'leads', label: 'Leads' },
  { to: 'bookings', label: 'Bookings' },
  { to: 'tokens', label: 'API tokens' },
  { to: 'webhooks', label: 'Webhooks' },
  { to: 'widget', label: 'Widget' },
  { to: 'knowledge', label: 'Knowledge' },
  { to: 'connections', label: 'Connections' },
  { to: 'members', label: 'Members' },
  { to: 'workspace', label: 'Workspace' },
  { to: 'audit', label: 'Audit log' },
  { to: 'handoff', label: 'Handoff' },
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
