import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from './client';
import { keys } from './keys';
import type { CreateEvalCase, EvalRun, ImportEvalCases, UpdateEvalCase, UpdateEvalSettings } from './types';

/** While a run is queued or running, its progress and the runs list are read this often. */
const RUN_POLL_MS = 1000;
/** The banner's alerts are read again this often (a run may finish on another page). */
const ALERTS_POLL_MS = 30_000;

const botPath = (workspaceId: string, botId: string) => ({ params: { path: { workspaceId, botId } } });

export const isRunActive = (run: Pick<EvalRun, 'status'> | undefined | null): boolean => run?.status === 'queued' || run?.status === 'running';

/** The export's address: a plain link downloads it (Content-Disposition: attachment), with the session cookie. */
export function exportHref(workspaceId: string, botId: string, format: 'csv' | 'jsonl'): string {
  return `/api/workspaces/${encodeURIComponent(workspaceId)}/bots/${encodeURIComponent(botId)}/evaluations/cases/export?format=${format}`;
}

/** The bot's test set (GET …/evaluations/cases). */
export function useEvalCases(workspaceId: string, botId: string) {
  return useQuery({
    queryKey: keys.evalCases(workspaceId, botId),
    queryFn: async () => (await unwrap(api.GET('/workspaces/{workspaceId}/bots/{botId}/evaluations/cases', botPath(workspaceId, botId)))).data,
  });
}

function useRefreshCases(workspaceId: string) {
  const queryClient = useQueryClient();
  return (botId: string) => queryClient.invalidateQueries({ queryKey: keys.evalCases(workspaceId, botId) });
}

/** Adds a case (the Evaluations page, a transcript's "Add to test set", the Analytics page's). */
export function useCreateEvalCase(workspaceId: string) {
  const refresh = useRefreshCases(workspaceId);
  return useMutation({
    mutationFn: async ({ botId, body }: { botId: string; body: CreateEvalCase }) =>
      (await unwrap(api.POST('/workspaces/{workspaceId}/bots/{botId}/evaluations/cases', { ...botPath(workspaceId, botId), body }))).data,
    onSettled: (_data, _error, { botId }) => refresh(botId),
  });
}

export function useUpdateEvalCase(workspaceId: string, botId: string) {
  const refresh = useRefreshCases(workspaceId);
  return useMutation({
    mutationFn: async ({ caseId, body }: { caseId: string; body: UpdateEvalCase }) =>
      (await unwrap(api.PATCH('/workspaces/{workspaceId}/bots/{botId}/evaluations/cases/{caseId}', { params: { path: { workspaceId, botId, caseId } }, body }))).data,
    onSettled: () => refresh(botId),
  });
}

export function useDeleteEvalCase(workspaceId: string, botId: string) {
  const refresh = useRefreshCases(workspaceId);
  return useMutation({
    mutationFn: (caseId: string) => unwrap(api.DELETE('/workspaces/{workspaceId}/bots/{botId}/evaluations/cases/{caseId}', { params: { path: { workspaceId, botId, caseId } } })),
    onSettled: () => refresh(botId),
  });
}

/** Imports a CSV or JSONL file's text (append or replace). */
export function useImportEvalCases(workspaceId: string, botId: string) {
  const refresh = useRefreshCases(workspaceId);
  return useMutation({
    mutationFn: async (body: ImportEvalCases) => (await unwrap(api.POST('/workspaces/{workspaceId}/bots/{botId}/evaluations/cases/import', { ...botPath(workspaceId, botId), body }))).data,
    onSettled: () => refresh(botId),
  });
}

export function useEvalSettings(workspaceId: string, botId: string) {
  return useQuery({
    queryKey: keys.evalSettings(workspaceId, botId),
    queryFn: async () => (await unwrap(api.GET('/workspaces/{workspaceId}/bots/{botId}/evaluations/settings', botPath(workspaceId, botId)))).data,
  });
}

export function useUpdateEvalSettings(workspaceId: string, botId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (body: UpdateEvalSettings) => (await unwrap(api.PUT('/workspaces/{workspaceId}/bots/{botId}/evaluations/settings', { ...botPath(workspaceId, botId), body }))).data,
    onSuccess: (data) => queryClient.setQueryData(keys.evalSettings(workspaceId, botId), data),
  });
}

/** The bot's runs, newest first; read every second while the newest is queued or running. */
export function useEvalRuns(workspaceId: string, botId: string) {
  return useQuery({
    queryKey: keys.evalRuns(workspaceId, botId),
    queryFn: async () => (await unwrap(api.GET('/workspaces/{workspaceId}/bots/{botId}/evaluations/runs', { params: { path: { workspaceId, botId }, query: { limit: 30 } } }))).data,
    refetchInterval: (query) => (isRunActive(query.state.data?.[0]) ? RUN_POLL_MS : false),
  });
}

/** Results read per page ("Show more results" reads the next). */
const RESULTS_PAGE = 100;

/** One run with its results, a page at a time; read every second while it is queued or running. */
export function useEvalRun(workspaceId: string, botId: string, runId: string | null) {
  return useInfiniteQuery({
    queryKey: [...keys.evalRuns(workspaceId, botId), runId ?? 'none'],
    enabled: runId !== null,
    initialPageParam: 0,
    queryFn: async ({ pageParam }) =>
      (
        await unwrap(
          api.GET('/workspaces/{workspaceId}/bots/{botId}/evaluations/runs/{runId}', {
            params: { path: { workspaceId, botId, runId: runId ?? '' }, query: { offset: pageParam, limit: RESULTS_PAGE } },
          }),
        )
      ).data,
    getNextPageParam: (last) => last.next_offset ?? undefined,
    refetchInterval: (query) => (isRunActive(query.state.data?.pages[0]?.run) ? RUN_POLL_MS : false),
  });
}

/** "Run now": the queued run heads the runs list at once, and polling starts. */
export function useStartEvalRun(workspaceId: string, botId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async () => (await unwrap(api.POST('/workspaces/{workspaceId}/bots/{botId}/evaluations/runs', botPath(workspaceId, botId)))).data,
    onSuccess: (run) => queryClient.setQueryData<EvalRun[]>(keys.evalRuns(workspaceId, botId), (runs) => [run, ...(runs ?? []).filter((r) => r.id !== run.id)]),
    onSettled: () => queryClient.invalidateQueries({ queryKey: keys.evalRuns(workspaceId, botId) }),
  });
}

/** The workspace's bots whose latest run is under their gate (the layout's banner). */
export function useEvalAlerts(workspaceId: string) {
  return useQuery({
    queryKey: keys.evalAlerts(workspaceId),
    queryFn: async () => (await unwrap(api.GET('/workspaces/{workspaceId}/evaluations/alerts', { params: { path: { workspaceId } } }))).data,
    refetchInterval: ALERTS_POLL_MS,
    // No evaluations service yet, or it is down: no banner, and no error on every page.
    retry: false,
  });
}
