import { ArrayMaxSize, ArrayMinSize, Equals, IsArray, IsIn, IsString, IsUUID, Matches } from 'class-validator';
import { Doc, Nested, Nullable, ROLES, Role, SCOPES, Scope } from '@sa/contracts';

export class InteractionParams {
  @Doc('The authorization request waiting for consent (the last path segment of /oauth/consent/{uid}).')
  @Matches(/^[A-Za-z0-9_-]{1,100}$/, { message: 'uid is not an interaction id' })
  uid: string;
}

@Doc({ name: 'AllowOauthInteractionRequest', description: 'The person\'s approval: one workspace (owner or admin), the scopes (a subset of those requested), the bots (null: all).' })
export class AllowInteractionRequest {
  @IsUUID('all') workspace_id: string;
  @IsArray() @ArrayMinSize(1) @ArrayMaxSize(SCOPES.length) @IsIn(SCOPES, { each: true }) scopes: Scope[];
  @Doc('Null: every bot of the workspace, now and later.') @Nullable() @IsArray() @ArrayMaxSize(1000) @IsUUID('all', { each: true }) bot_ids: string[] | null;
}

@Doc({ name: 'OauthInteractionClient', description: 'The client asking. Its name is what the client says about itself (never verified: show it as such, as text).' })
export class InteractionClientView {
  @Doc('The client_id (a URL for a Client ID Metadata Document).') @IsString() id: string;
  @IsString() name: string;
  @Doc('Always false: the name is self-asserted.') @Equals(false) name_verified: false;
  @Doc('Host (and port) of the redirect URI the browser returns to.') @IsString() redirect_host: string;
}

@Doc({ name: 'OauthInteractionWorkspace', description: 'A workspace the person may approve for (owner or admin).' })
export class InteractionWorkspaceView {
  @IsUUID() id: string;
  @IsString() name: string;
  @IsIn(ROLES) role: Role;
}

@Doc({ name: 'OauthInteraction', description: 'An authorization request waiting for the person\'s Allow or Deny.' })
export class InteractionView {
  @Nested(() => InteractionClientView) client: InteractionClientView;
  @Doc('The API scopes the client asked for (others it asked for are not offered).') @IsArray() @IsIn(SCOPES, { each: true }) requested_scopes: Scope[];
  @Doc('The MCP server the tokens are for (RFC 8707).') @IsString() resource: string;
  @IsArray() @Nested(() => InteractionWorkspaceView) workspaces: InteractionWorkspaceView[];
}

@Doc({ name: 'OauthInteractionDone', description: 'Where the browser goes next: back to the authorization, which sends it to the client.' })
export class InteractionDoneView {
  @IsString() redirect_to: string;
}
