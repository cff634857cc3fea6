import { createContext, useContext } from 'react';
import type { Role, Session, SessionWorkspace } from '../api/types';

export interface CurrentWorkspace {
  workspace: SessionWorkspace;
  session: Session;
  role: Role;
  /** Owners and admins manage tokens, webhooks and members; members read. */
  canManage: boolean;
  isOwner: boolean;
}

export const WorkspaceContext = createContext<CurrentWorkspace | null>(null);

export function useCurrentWorkspace(): CurrentWorkspace {
  const current = useContext(WorkspaceContext);
  if (!current) throw new Error('useCurrentWorkspace outside a workspace page');
  return current;
}
