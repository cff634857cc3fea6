import type { components, paths as generatedPaths } from './schema';

/*
 * Hand-written until the console's OpenAPI document describes them fully (issue 17): the consent
 * interaction routes, in openapi-typescript's shape. The generated document has them but not yet
 * their 200 answers (the controller declares no response schema). They replace the generated
 * entries of the same path; once `node tools/console/generate.js` writes them complete, delete
 * `OAuthPaths` and make `ConsolePaths` the generated `paths`: the client and the views read
 * `ConsolePaths` only. (The Connections routes come from the generated schema already.)
 */
type Scope = components['schemas']['ApiToken']['scopes'][number];
type ErrorObject = components['schemas']['ErrorObject'];
type Fail = { headers: { [name: string]: unknown }; content: { 'application/json': ErrorObject } };
type Answer<T> = { headers: { [name: string]: unknown }; content: { 'application/json': T } };
type NoParams = { query?: never; header?: never; path?: never; cookie?: never };
type Unused = { put?: never; delete?: never; options?: never; head?: never; patch?: never; trace?: never };

export interface OAuthSchemas {
  /** The consent interaction: who asks (self-asserted, never verified), for what, and where the person may approve it. */
  OAuthInteraction: {
    client: { id: string; name: string | null; name_verified: boolean; redirect_host: string };
    requested_scopes: Scope[];
    resource: string;
    /** Only the workspaces where the person is owner or admin. */
    workspaces: { id: string; name: string; role: 'owner' | 'admin' | 'member' }[];
  };
  OAuthAllowRequest: { workspace_id: string; scopes: Scope[]; bot_ids: string[] | null };
  OAuthRedirect: { redirect_to: string };
}

type S = OAuthSchemas;
type UidPath = { query?: never; header?: never; path: { uid: string }; cookie?: never };

export interface OAuthPaths {
  '/oauth/interactions/{uid}': Unused & {
    parameters: NoParams;
    get: { parameters: UidPath; requestBody?: never; responses: { 200: Answer<S['OAuthInteraction']>; 401: Fail; 404: Fail } };
    post?: never;
  };
  '/oauth/interactions/{uid}/allow': Unused & {
    parameters: NoParams;
    get?: never;
    post: {
      parameters: UidPath;
      requestBody: { content: { 'application/json': S['OAuthAllowRequest'] } };
      responses: { 200: Answer<S['OAuthRedirect']>; 400: Fail; 401: Fail; 403: Fail; 404: Fail };
    };
  };
  '/oauth/interactions/{uid}/deny': Unused & {
    parameters: NoParams;
    get?: never;
    post: { parameters: UidPath; requestBody?: never; responses: { 200: Answer<S['OAuthRedirect']>; 401: Fail; 403: Fail; 404: Fail } };
  };
}

/** Every path the web application calls. */
export type ConsolePaths = Omit<generatedPaths, keyof OAuthPaths> & OAuthPaths;
