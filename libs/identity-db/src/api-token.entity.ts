import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';
import type { Scope } from '@sa/contracts';
import type { TokenGrant } from '@sa/identity';

/** An API token. Only the SHA-256 of the secret is stored; the secret is shown once at creation. */
@Entity({ schema: 'identity', name: 'api_tokens' })
export class ApiTokenEntity implements TokenGrant {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column('uuid', { name: 'workspace_id' }) workspaceId: string;
  @Column('text') name: string;
  @Column('text', { name: 'token_hash', select: false }) tokenHash: string;
  /** The first characters of the secret, enough to recognise it in a list. */
  @Column('text', { name: 'token_hint' }) tokenHint: string;
  @Column('text', { array: true }) scopes: Scope[];
  @Column('uuid', { name: 'bot_ids', array: true, nullable: true }) botIds: string[] | null;
  @Column('timestamptz', { name: 'expires_at', nullable: true }) expiresAt: Date | null;
  @Column('timestamptz', { name: 'revoked_at', nullable: true }) revokedAt: Date | null;
  @Column('timestamptz', { name: 'last_used_at', nullable: true }) lastUsedAt: Date | null;
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt: Date;
}
