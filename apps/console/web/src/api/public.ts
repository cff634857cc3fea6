import { useMutation, useQuery } from '@tanstack/react-query';
import { api, unwrap } from './client';
import { keys } from './keys';
import { useStoreSession } from './session';

/* What people do without a session: password reset, invitation. */

export function useRequestPasswordReset() {
  return useMutation({ mutationFn: (email: string) => unwrap(api.POST('/password-resets', { body: { email } })) });
}

export function useConfirmPasswordReset() {
  return useMutation({ mutationFn: (body: { token: string; password: string }) => unwrap(api.POST('/password-resets/confirm', { body })) });
}

export function useInvitationPreview(token: string | null) {
  return useQuery({
    queryKey: keys.invitation(token ?? ''),
    queryFn: () => unwrap(api.GET('/invitations/{token}', { params: { path: { token: token ?? '' } } })),
    enabled: token !== null && token !== '',
    retry: false,
  });
}

export function useAcceptInvitation() {
  const store = useStoreSession();
  return useMutation({
    mutationFn: (body: { token: string; password: string; display_name?: string }) => unwrap(api.POST('/invitations/accept', { body })),
    onSuccess: store,
  });
}
