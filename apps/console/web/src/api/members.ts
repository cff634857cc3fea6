import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from './client';
import { keys } from './keys';
import type { InviteBody, Role } from './types';

export function useMembers(workspaceId: string) {
  return useQuery({
    queryKey: keys.members(workspaceId),
    queryFn: async () => (await unwrap(api.GET('/workspaces/{workspaceId}/members', { params: { path: { workspaceId } } }))).data,
  });
}

export function useInvitations(workspaceId: string) {
  return useQuery({
    queryKey: keys.invitations(workspaceId),
    queryFn: async () => (await unwrap(api.GET('/workspaces/{workspaceId}/invitations', { params: { path: { workspaceId } } }))).data,
  });
}

export function useChangeRole(workspaceId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ personId, role }: { personId: string; role: Role }) =>
      unwrap(api.PATCH('/workspaces/{workspaceId}/members/{personId}', { params: { path: { workspaceId, personId } }, body: { role } })),
    onSettled: () => Promise.all([queryClient.invalidateQueries({ queryKey: keys.members(workspaceId) }), queryClient.invalidateQueries({ queryKey: ['session'] })]),
  });
}

export function useRemoveMember(workspaceId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (personId: string) => unwrap(api.DELETE('/workspaces/{workspaceId}/members/{personId}', { params: { path: { workspaceId, personId } } })),
    onSettled: () => queryClient.invalidateQueries({ queryKey: keys.members(workspaceId) }),
  });
}

export function useInvite(workspaceId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: InviteBody) => unwrap(api.POST('/workspaces/{workspaceId}/invitations', { params: { path: { workspaceId } }, body })),
    onSettled: () => queryClient.invalidateQueries({ queryKey: keys.invitations(workspaceId) }),
  });
}

export function useCancelInvitation(workspaceId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (invitationId: string) =>
      unwrap(api.DELETE('/workspaces/{workspaceId}/invitations/{invitationId}', { params: { path: { workspaceId, invitationId } } })),
    onSettled: () => queryClient.invalidateQueries({ queryKey: keys.invitations(workspaceId) }),
  });
}
