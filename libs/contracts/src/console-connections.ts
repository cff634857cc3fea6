import { ArrayMaxSize, IsArray, IsIn, IsISO8601, IsString, IsUUID } from 'class-validator';
import { WorkspaceParams } from './console';
import { Doc, Nested, Nullable } from './schema-docs';
import { SCOPES, Scope } from './scopes';

/*
 * The console's Connections (issue 17, MCP OAuth): each "Allow" on the consent page is a
 * connection of an MCP client to the workspace, listed in the console and revocable there.
 */

export class ConnectionParams extends WorkspaceParams {
  @IsUUID('all') connectionId: string;
}

@Doc({ name: 'ConnectionApprover', description: 'The person who allowed the connection (their name is user text: render it as text).' })
export class ConnectionApproverView {
  @IsUUID() person_id: string;
  @IsString() email: string;
  @IsString() display_name: string;
}

@Doc({
  name: 'Connection',
  description:
    'An MCP client a person allowed through OAuth. It obeys the rules of an API token (scopes, bots, one rate-limit budget, 402 `api_locked` while the workspace is not live). Revoked: its access tokens answer 401 at once and it cannot refresh.',
})
export class ConnectionView {
  @IsUUID() id: string;
  @Doc('The OAuth client id (a URL for a client identified by its metadata document).') @IsString() client_id: string;
  @Doc("The client's own name, as it asserted it: not verified (render it as text).") @IsString() client_name: string;
  @Doc('Null when the person who allowed it has since been deleted.') @Nullable() @Nested(() => ConnectionApproverView) approved_by: ConnectionApproverView | null;
  @IsArray() @ArrayMaxSize(SCOPES.length) @IsIn(SCOPES, { each: true }) scopes: Scope[];
  @Doc('The bots it may use; null: every bot of the workspace.') @Nullable() @IsArray() @IsUUID('all', { each: true }) bot_ids: string[] | null;
  @IsISO8601() created_at: string;
  @Doc('When an MCP request last used it (recorded within about 30 seconds); null: never.') @Nullable() @IsISO8601() last_used_at: string | null;
  @Nullable() @IsISO8601() revoked_at: string | null;
}
