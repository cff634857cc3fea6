import { useLocation, useNavigate } from 'react-router';
import type { SessionWorkspace } from '../../api/types';
import { capitalise } from '../../lib/format';

/** The select labelled "Workspace": switching keeps the section (tokens, webhooks, …). */
export function WorkspaceSwitcher({ workspaces, currentId }: { workspaces: SessionWorkspace[]; currentId: string }) {
  const navigate = useNavigate();
  const { pathname } = useLocation();
  const section = pathname.split('/')[3] ?? 'tokens';
  const known = workspaces.some((w) => w.id === currentId);
  return (
    <div className="switcher">
      <label htmlFor="workspace-switcher" className="switcher__label">
        Workspace
      </label>
      <select
        id="workspace-switcher"
        className="field__select switcher__select"
        value={known ? currentId : ''}
        onChange={(e) => navigate(`/w/${encodeURIComponent(e.target.value)}/${section}`)}
      >
        {known ? null : (
          <option value="" disabled>
            Choose a workspace
          </option>
        )}
        {workspaces.map((w) => (
          <option key={w.id} value={w.id}>
            {w.name} ({capitalise(w.role)})
          </option>
        ))}
      </select>
    </div>
  );
}
