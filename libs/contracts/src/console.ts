import { IsArray, IsBoolean, IsEmail, IsIn, IsInt, IsISO8601, IsObject, IsOptional, IsString, IsUUID, Matches, Max, Min } from 'class-validator';
import { Type } from 'class-transformer';
import { CharLength } from './validation';
import { Doc, Nested, Nullable } from './schema-docs';
import { ROLES, Role } from './management';

/*
 * The owner console's JSON API (apps/console, under /api, cookie session): sign-in, sessions,
 * password resets, invitations, members and the audit log. The workspace's tokens, webhooks and
 * usage pages reuse the classes of management.ts.
 */

export const PASSWORD_MIN = 12;
export const PASSWORD_MAX = 256;
export const PERSON_EMAIL_MAX = 320;
export const DISPLAY_NAME_MAX = 100;
export const AUDIT_LIST_MAX = 200;
export const AUDIT_LIST_DEFAULT = 50;

/** Random secrets sent back by people (invitation and reset tokens): base64url of 32 bytes. */
const SECRET_PATTERN = /^[A-Za-z0-9_-]{43}$/;

@Doc({ description: 'Sign in with e-mail and password.' })
export class SignInRequest {
  @Doc('The e-mail address (compared without regard to case).') @IsString() @CharLength(3, PERSON_EMAIL_MAX) @IsEmail() email: string;
  @Doc(`The password (${PASSWORD_MIN} to ${PASSWORD_MAX} characters when it was set).`) @IsString() @CharLength(1, PASSWORD_MAX) password: string;
}

@Doc({ name: 'Person', description: 'The signed-in person.' })
export class PersonView {
  @IsUUID() id: string;
  @IsString() email: string;
  @Doc('Empty when none was given.') @IsString() display_name: string;
}

@Doc({ name: 'WorkspaceMembership', description: 'A workspace the person belongs to, with their role.' })
export class SessionWorkspaceView {
  @IsUUID() id: string;
  @IsString() name: string;
  @IsIn(ROLES) role: Role;
}

@Doc({ name: 'Session', description: 'The signed-in person, their workspaces and the CSRF token every write must send as `X-CSRF-Token`.' })
export class SessionView {
  @Nested(() => PersonView) person: PersonView;
  @IsArray() @Nested(() => SessionWorkspaceView) workspaces: SessionWorkspaceView[];
  @Doc('Send as the X-CSRF-Token header with every POST, PATCH, PUT and DELETE.') @IsString() csrf_token: string;
  @Doc('When the session ends unless used before (idle expiry), never after its absolute expiry.') @IsISO8601() expires_at: string;
}

@Doc({ description: 'Ask for a password reset link by e-mail. Always accepted (202), whether or not the address is known.' })
export class PasswordResetRequest {
  @IsString() @CharLength(3, PERSON_EMAIL_MAX) @IsEmail() email: string;
}

@Doc({ description: 'Set a new password with the token of a reset link.' })
export class PasswordResetConfirmRequest {
  @Doc('The token from the link in the e-mail.') @IsString() @Matches(SECRET_PATTERN, { message: 'token must be the token of the link' }) token: string;
  @Doc(`${PASSWORD_MIN} to ${PASSWORD_MAX} characters.`) @IsString() @CharLength(PASSWORD_MIN, PASSWORD_MAX) password: string;
}

export class InvitationTokenParams {
  @IsString() @Matches(SECRET_PATTERN, { message: 'token must be the token of the link' }) token: string;
}

@Doc({ name: 'InvitationPreview', description: 'What an invitation link offers, shown before it is accepted.' })
export class InvitationPreviewView {
  @IsString() email: string;
  @IsIn(ROLES) role: Role;
  @IsString() workspace_name: string;
  @Doc('True when a person with this e-mail exists: accepting then needs their password.') @IsBoolean() has_account: boolean;
}

@Doc({ description: 'Accept an invitation: signs in. Creates the person when none has the e-mail; otherwise the password must be theirs.' })
export class AcceptInvitationRequest {
  @IsString() @Matches(SECRET_PATTERN, { message: 'token must be the token of the link' }) token: string;
  @Doc(`For a new person the password to set (${PASSWORD_MIN} to ${PASSWORD_MAX} characters); for an existing one their password.`)
  @IsString()
  @CharLength(1, PASSWORD_MAX)
  password: string;
  @Doc(`The new person's name, up to ${DISPLAY_NAME_MAX} characters (ignored for an existing person).`)
  @IsOptional()
  @IsString()
  @CharLength(0, DISPLAY_NAME_MAX)
  display_name?: string;
}

export class WorkspaceParams {
  @IsUUID('all') workspaceId: string;
}

export class MemberParams extends WorkspaceParams {
  @IsUUID('all') personId: string;
}

export class InvitationParams extends WorkspaceParams {
  @IsUUID('all') invitationId: string;
}

@Doc({ name: 'Member', description: 'A person of the workspace.' })
export class MemberView {
  @IsUUID() person_id: string;
  @IsString() email: string;
  @IsString() display_name: string;
  @IsIn(ROLES) role: Role;
  @IsISO8601() joined_at: string;
}

@Doc({ description: 'Change a member\'s role. Only owners give or take the owner role; the last owner keeps it (409 last_owner).' })
export class ChangeRoleRequest {
  @IsIn(ROLES) role: Role;
}

@Doc({ description: 'Invite a person by e-mail. The link goes only by e-mail.' })
export class CreateInvitationRequest {
  @IsString() @CharLength(3, PERSON_EMAIL_MAX) @IsEmail() email: string;
  @Doc('Only owners invite owners.') @IsIn(ROLES) role: Role;
}

@Doc({ name: 'Invitation', description: 'An open invitation (never its link).' })
export class InvitationView {
  @IsUUID() id: string;
  @IsString() email: string;
  @IsIn(ROLES) role: Role;
  @Doc('The e-mail of the person who invited, or `cli:<user>`.') @IsString() invited_by: string;
  @IsISO8601() created_at: string;
  @IsISO8601() expires_at: string;
}

export class AuditQuery {
  @Doc(`1 to ${AUDIT_LIST_MAX}; default ${AUDIT_LIST_DEFAULT}.`) @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(AUDIT_LIST_MAX) limit?: number;
  @Doc('Only entries older than this entry id (the `id` of the last entry of the previous page).') @IsOptional() @IsString() @Matches(/^[1-9][0-9]{0,17}$/) before?: string;
}

export const ACTOR_KINDS = ['person', 'cli'] as const;
export type ActorKind = (typeof ACTOR_KINDS)[number];

@Doc({ name: 'AuditActor', description: 'Who made a change: a person (id, e-mail) or the admin CLI (`cli`, the operating-system user).' })
export class AuditActorView {
  @IsIn(ACTOR_KINDS) kind: ActorKind;
  @Nullable() @IsUUID() id: string | null;
  @IsString() label: string;
}

@Doc({ name: 'AuditEntry', description: 'One change made through the console or the admin CLI.' })
export class AuditEntryView {
  @Doc('Increasing; pass as `before` for the next page.') @IsString() id: string;
  @IsISO8601() at: string;
  @Nested(() => AuditActorView) actor: AuditActorView;
  @Doc('What was done, such as `token.created` or `member.role_changed`.') @IsString() action: string;
  @Doc('What it was done to: `token`, `webhook`, `member`, `invitation`, `workspace`, `person`.') @IsString() target_kind: string;
  @Nullable() @IsString() target_id: string | null;
  @Doc('Non-secret facts of the change.') @IsObject() details: Record<string, unknown>;
}

/** The person the admin CLI created or found (`user create`). */
export interface CreatedUserView {
  id: string;
  email: string;
  workspace_id: string;
  role: Role;
}

// ---- First-run setup (issue 31) ----

/** The longest setup code accepted (a generated one is 32 characters in groups of four). */
export const SETUP_CODE_MAX = 200;

@Doc({ name: 'SetupStatus', description: 'Whether this installation still waits for its first owner.' })
export class SetupStatusView {
  @Doc('Always true: once the first owner exists this route answers 410 `setup_done`.') @IsBoolean() needed: true;
}

export class SetupRequest {
  @Doc('The one-time setup code `npm start` printed (or the console app logged, or CONSOLE_SETUP_CODE). Case, spaces and hyphens do not matter.')
  @IsString()
  @CharLength(1, SETUP_CODE_MAX)
  code: string;
  @Doc('The first workspace\'s name.') @IsString() @CharLength(1, 100) @Matches(/\S/, { message: 'workspace_name must not be blank' }) workspace_name: string;
  @Doc(`The owner's name, up to ${DISPLAY_NAME_MAX} characters.`) @IsString() @CharLength(1, DISPLAY_NAME_MAX) @Matches(/\S/, { message: 'display_name must not be blank' }) display_name: string;
  @Doc('The owner\'s e-mail address (their sign-in).') @IsString() @CharLength(3, PERSON_EMAIL_MAX) @IsEmail() email: string;
  @Doc(`The owner's password (${PASSWORD_MIN} to ${PASSWORD_MAX} characters).`) @IsString() @CharLength(1, PASSWORD_MAX) password: string;
}
