import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from './client';
import type { paths } from './schema';
import type { Booking, Lead, UpdateBooking } from './types';

/*
 * Conversations, leads and bookings (issue 19). Their keys sit under ['workspace', id] like the
 * others (keys.ts), so a workspace switch or a sign-out drops them.
 */

const recordKeys = {
  conversations: (id: string) => ['workspace', id, 'conversations'] as const,
  leads: (id: string) => ['workspace', id, 'leads'] as const,
  bookings: (id: string) => ['workspace', id, 'bookings'] as const,
};

/** Where a conversation or lead came from: the API's channel filter (the contract's CHAT_CHANNELS, through the generated schema). */
export type ChatChannel = NonNullable<NonNullable<paths['/workspaces/{workspaceId}/conversations']['get']['parameters']['query']>['channel']>;

export interface ConversationFilter {
  q?: string;
  channel?: ChatChannel;
  chatbotId?: string;
}

export function useConversations(workspaceId: string, filter: ConversationFilter) {
  return useQuery({
    queryKey: [...recordKeys.conversations(workspaceId), 'list', filter],
    queryFn: async () => (await unwrap(api.GET('/workspaces/{workspaceId}/conversations', { params: { path: { workspaceId }, query: filter } }))).data,
    placeholderData: keepPreviousData,
  });
}

export function useConversation(workspaceId: string, sessionId: string | null) {
  return useQuery({
    queryKey: [...recordKeys.conversations(workspaceId), 'one', sessionId],
    queryFn: async () => (await unwrap(api.GET('/workspaces/{workspaceId}/conversations/{sessionId}', { params: { path: { workspaceId, sessionId: sessionId! } } }))).data,
    enabled: sessionId !== null,
  });
}

export interface LeadFilter {
  chatbotId?: string;
  band?: Lead['score_band'];
  minScore?: number;
  status?: Lead['status'];
  channel?: ChatChannel;
}

export function useLeads(workspaceId: string, filter: LeadFilter, cursor: string | null) {
  return useQuery({
    queryKey: [...recordKeys.leads(workspaceId), 'list', filter, cursor],
    queryFn: async () => unwrap(api.GET('/workspaces/{workspaceId}/leads', { params: { path: { workspaceId }, query: { ...filter, ...(cursor ? { cursor } : {}) } } })),
    placeholderData: keepPreviousData,
  });
}

export function useLead(workspaceId: string, leadId: string | null) {
  return useQuery({
    queryKey: [...recordKeys.leads(workspaceId), 'one', leadId],
    queryFn: async () => (await unwrap(api.GET('/workspaces/{workspaceId}/leads/{leadId}', { params: { path: { workspaceId, leadId: leadId! } } }))).data,
    enabled: leadId !== null,
  });
}

/** The export's address (a plain GET the browser downloads with the session cookie). */
export function leadsExportUrl(workspaceId: string, filter: LeadFilter): string {
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(filter)) if (v !== undefined && v !== '') query.set(k, String(v));
  const qs = query.toString();
  return `/api/workspaces/${encodeURIComponent(workspaceId)}/leads/export${qs ? `?${qs}` : ''}`;
}

export function useChangeLeadStatus(workspaceId: string, leadId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (body: { status: Lead['status']; note?: string }) =>
      (await unwrap(api.POST('/workspaces/{workspaceId}/leads/{leadId}/status', { params: { path: { workspaceId, leadId } }, body }))).data,
    onSettled: () => queryClient.invalidateQueries({ queryKey: recordKeys.leads(workspaceId) }),
  });
}

export function useBookings(workspaceId: string, status: string) {
  return useQuery({
    queryKey: [...recordKeys.bookings(workspaceId), status],
    queryFn: async () =>
      (await unwrap(api.GET('/workspaces/{workspaceId}/bookings', { params: { path: { workspaceId }, query: status ? { status: status as Booking['status'] } : {} } }))).data,
    placeholderData: keepPreviousData,
  });
}


/**
 * PATCH …/bookings/{id}. The list refreshes after a success; after a refusal (409) it refreshes
 * when the person closes the dialog (`refresh`), so the row and its dialog stay while they read why.
 */
export function useUpdateBooking(workspaceId: string) {
  const queryClient = useQueryClient();
  const refresh = () => queryClient.invalidateQueries({ queryKey: recordKeys.bookings(workspaceId) });
  const mutation = useMutation({
    mutationFn: async ({ bookingId, body }: { bookingId: string; body: UpdateBooking }) =>
      (await unwrap(api.PATCH('/workspaces/{workspaceId}/bookings/{bookingId}', { params: { path: { workspaceId, bookingId } }, body }))).data,
    onSuccess: refresh,
  });
  return { ...mutation, refresh };
}
