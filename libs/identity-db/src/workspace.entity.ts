import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import type { BillingStatus, Plan, TierSlots } from '@sa/contracts';
import type { WorkspaceFacts } from '@sa/identity';

/** A tenant. Owned by the gateway (schema `identity`). Null quotas mean "the plan's default". */
@Entity({ schema: 'identity', name: 'workspaces' })
export class WorkspaceEntity implements WorkspaceFacts {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column('text') name: string;
  @Column('text') plan: Plan;
  @Column('timestamptz', { name: 'trial_ends_at', nullable: true }) trialEndsAt: Date | null;
  @Column('text', { name: 'billing_status' }) billingStatus: BillingStatus;
  @Column('boolean', { name: 'enterprise_api' }) enterpriseApi: boolean;
  @Column('boolean', { name: 'enterprise_webhooks' }) enterpriseWebhooks: boolean;
  @Column('jsonb', { name: 'tier_slots' }) tierSlots: TierSlots;
  @Column('integer', { name: 'messages_per_month', nullable: true }) messagesPerMonth: number | null;
  @Column('integer', { name: 'pages_per_bot', nullable: true }) pagesPerBot: number | null;
  @Column('integer', { name: 'bot_slots', nullable: true }) botSlots: number | null;
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt: Date;
  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' }) updatedAt: Date;
}
