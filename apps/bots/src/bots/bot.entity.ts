import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import type { EnterpriseTier, SlotKind } from '@sa/contracts';

@Entity({ schema: 'bots', name: 'bots' })
export class BotEntity {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column('uuid', { name: 'tenant_id' }) tenantId: string;
  @Column('text') name: string;
  @Column('text') language: string;
  @Column('text', { name: 'slot_kind' }) slotKind: SlotKind;
  @Column('text', { name: 'enterprise_plan_tier', nullable: true }) enterprisePlanTier: EnterpriseTier | null;
  @Column('timestamptz', { name: 'created_at', default: () => 'clock_timestamp()' }) createdAt: Date;
}
