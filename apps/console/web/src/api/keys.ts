/** Query keys: everything of a workspace sits under ['workspace', id] so that a switch or a sign-out drops it at once. */
export const keys = {
  session: ['session'] as const,
  invitation: (token: string) => ['invitation', token] as const,
  workspace: (id: string) => ['workspace', id] as const,
  bots: (id: string) => ['workspace', id, 'bots'] as const,
  tokens: (id: string) => ['workspace', id, 'tokens'] as const,
  webhooks: (id: string) => ['workspace', id, 'webhooks'] as const,
  deliveries: (id: string, webhookId: string) => ['workspace', id, 'webhooks', webhookId, 'deliveries'] as const,
  members: (id: string) => ['workspace', id, 'members'] as const,
  invitations: (id: string) => ['workspace', id, 'invitations'] as const,
  audit: (id: string) => ['workspace', id, 'audit'] as const,
  widget: (id: string, botId: string) => ['workspace', id, 'widget', botId] as const,
  connections: (id: string) => ['workspace', id, 'connections'] as const,
  analytics: (id: string, botId: string | null) => ['workspace', id, 'analytics', botId ?? 'all'] as const,
  analyticsQuestions: (id: string) => ['workspace', id, 'analytics-questions'] as const,
  interaction: (uid: string) => ['oauth-interaction', uid] as const,
};
