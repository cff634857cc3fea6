// The console API's types in the shape openapi-typescript produces (a `paths` interface).
// Written by hand from the console API of issue #16 until tools/console/generate.js generates this
// file from the console's OpenAPI document (GET /api/openapi.json); then it is replaced as a whole.
// Nothing outside apps/console/web/src/api imports it.
export interface paths {
    "/api/session": {
        parameters: { query?: never; header?: never; path?: never; cookie?: never };
        /** The current session */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                200: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["Session"] } };
                401: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["Error"] } };
            };
        };
        put?: never;
        /** Sign in */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: { content: { "application/json": components["schemas"]["SignInRequest"] } };
            responses: {
                200: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["Session"] } };
                400: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["ValidationError"] | components["schemas"]["Error"] } };
                401: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["Error"] } };
                403: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["Error"] } };
                429: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["Error"] } };
            };
        };
        /** Sign out */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                204: { headers: { [name: string]: unknown }; content?: never };
                401: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["Error"] } };
                403: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["Error"] } };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/session/sign-out-everywhere": {
        parameters: { query?: never; header?: never; path?: never; cookie?: never };
        get?: never;
        put?: never;
        /** Sign out everywhere */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                204: { headers: { [name: string]: unknown }; content?: never };
                401: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["Error"] } };
                403: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["Error"] } };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/password-resets": {
        parameters: { query?: never; header?: never; path?: never; cookie?: never };
        get?: never;
        put?: never;
        /** Request a password reset */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: { content: { "application/json": components["schemas"]["PasswordResetRequest"] } };
            responses: {
                202: { headers: { [name: string]: unknown }; content: { "application/json": Record<string, never> } };
                400: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["ValidationError"] | components["schemas"]["Error"] } };
                403: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["Error"] } };
                429: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["Error"] } };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/password-resets/confirm": {
        parameters: { query?: never; header?: never; path?: never; cookie?: never };
        get?: never;
        put?: never;
        /** Set a new password */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: { content: { "application/json": components["schemas"]["PasswordResetConfirmRequest"] } };
            responses: {
                204: { headers: { [name: string]: unknown }; content?: never };
                400: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["ValidationError"] | components["schemas"]["Error"] } };
                403: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["Error"] } };
                429: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["Error"] } };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/invitations/{token}": {
        parameters: { query?: never; header?: never; path?: never; cookie?: never };
        /** An invitation, by its token */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: { token: string; };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                200: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["InvitationPreview"] } };
                404: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["Error"] } };
                429: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["Error"] } };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/invitations/accept": {
        parameters: { query?: never; header?: never; path?: never; cookie?: never };
        get?: never;
        put?: never;
        /** Accept an invitation */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: { content: { "application/json": components["schemas"]["AcceptInvitationRequest"] } };
            responses: {
                200: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["Session"] } };
                400: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["ValidationError"] | components["schemas"]["Error"] } };
                401: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["Error"] } };
                403: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["Error"] } };
                404: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["Error"] } };
                429: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["Error"] } };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workspaces/{workspaceId}": {
        parameters: { query?: never; header?: never; path?: never; cookie?: never };
        /** A workspace */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: { workspaceId: string; };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                200: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["Workspace"] } };
                401: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["Error"] } };
                404: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["Error"] } };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workspaces/{workspaceId}/bots": {
        parameters: { query?: never; header?: never; path?: never; cookie?: never };
        /** Bots of the workspace */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: { workspaceId: string; };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                200: { headers: { [name: string]: unknown }; content: { "application/json": { data: components["schemas"]["BotSummary"][] } } };
                401: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["Error"] } };
                404: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["Error"] } };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workspaces/{workspaceId}/tokens": {
        parameters: { query?: never; header?: never; path?: never; cookie?: never };
        /** API tokens */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: { workspaceId: string; };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                200: { headers: { [name: string]: unknown }; content: { "application/json": { data: components["schemas"]["ApiToken"][] } } };
                401: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["Error"] } };
                404: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["Error"] } };
            };
        };
        put?: never;
        /** Create an API token */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: { workspaceId: string; };
                cookie?: never;
            };
            requestBody: { content: { "application/json": components["schemas"]["CreateApiTokenRequest"] } };
            responses: {
                201: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["CreatedApiToken"] } };
                400: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["ValidationError"] | components["schemas"]["Error"] } };
                401: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["Error"] } };
                403: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["Error"] } };
                404: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["Error"] } };
                429: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["Error"] } };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workspaces/{workspaceId}/tokens/{tokenId}/revoke": {
        parameters: { query?: never; header?: never; path?: never; cookie?: never };
        get?: never;
        put?: never;
        /** Revoke an API token */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: { workspaceId: string; tokenId: string; };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                200: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["ApiToken"] } };
                401: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["Error"] } };
                403: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["Error"] } };
                404: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["Error"] } };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workspaces/{workspaceId}/webhooks": {
        parameters: { query?: never; header?: never; path?: never; cookie?: never };
        /** Webhooks */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: { workspaceId: string; };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                200: { headers: { [name: string]: unknown }; content: { "application/json": { data: components["schemas"]["Webhook"][] } } };
                401: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["Error"] } };
                404: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["Error"] } };
            };
        };
        put?: never;
        /** Add a webhook */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: { workspaceId: string; };
                cookie?: never;
            };
            requestBody: { content: { "application/json": components["schemas"]["CreateWebhookRequest"] } };
            responses: {
                201: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["CreatedWebhook"] } };
                400: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["ValidationError"] | components["schemas"]["Error"] } };
                401: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["Error"] } };
                403: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["Error"] } };
                404: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["Error"] } };
                429: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["Error"] } };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workspaces/{workspaceId}/webhooks/{webhookId}": {
        parameters: { query?: never; header?: never; path?: never; cookie?: never };
        get?: never;
        put?: never;
        post?: never;
        /** Delete a webhook */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: { workspaceId: string; webhookId: string; };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                204: { headers: { [name: string]: unknown }; content?: never };
                401: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["Error"] } };
                403: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["Error"] } };
                404: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["Error"] } };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workspaces/{workspaceId}/webhooks/{webhookId}/rotate-secret": {
        parameters: { query?: never; header?: never; path?: never; cookie?: never };
        get?: never;
        put?: never;
        /** Rotate the signing secret */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: { workspaceId: string; webhookId: string; };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                200: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["WebhookSecret"] } };
                401: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["Error"] } };
                403: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["Error"] } };
                404: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["Error"] } };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workspaces/{workspaceId}/webhooks/{webhookId}/test": {
        parameters: { query?: never; header?: never; path?: never; cookie?: never };
        get?: never;
        put?: never;
        /** Send a test event */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: { workspaceId: string; webhookId: string; };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                202: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["Delivery"] } };
                401: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["Error"] } };
                403: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["Error"] } };
                404: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["Error"] } };
                429: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["Error"] } };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workspaces/{workspaceId}/webhooks/{webhookId}/deliveries": {
        parameters: { query?: never; header?: never; path?: never; cookie?: never };
        /** Deliveries of a webhook */
        get: {
            parameters: {
                query?: { limit?: number; };
                header?: never;
                path: { workspaceId: string; webhookId: string; };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                200: { headers: { [name: string]: unknown }; content: { "application/json": { data: components["schemas"]["Delivery"][] } } };
                400: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["ValidationError"] | components["schemas"]["Error"] } };
                401: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["Error"] } };
                404: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["Error"] } };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workspaces/{workspaceId}/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver": {
        parameters: { query?: never; header?: never; path?: never; cookie?: never };
        get?: never;
        put?: never;
        /** Redeliver */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: { workspaceId: string; webhookId: string; deliveryId: string; };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                202: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["Delivery"] } };
                401: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["Error"] } };
                403: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["Error"] } };
                404: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["Error"] } };
                409: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["Error"] } };
                429: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["Error"] } };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workspaces/{workspaceId}/members": {
        parameters: { query?: never; header?: never; path?: never; cookie?: never };
        /** Members */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: { workspaceId: string; };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                200: { headers: { [name: string]: unknown }; content: { "application/json": { data: components["schemas"]["Member"][] } } };
                401: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["Error"] } };
                404: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["Error"] } };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workspaces/{workspaceId}/members/{personId}": {
        parameters: { query?: never; header?: never; path?: never; cookie?: never };
        get?: never;
        put?: never;
        post?: never;
        /** Remove a member */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: { workspaceId: string; personId: string; };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                204: { headers: { [name: string]: unknown }; content?: never };
                401: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["Error"] } };
                403: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["Error"] } };
                404: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["Error"] } };
                409: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["Error"] } };
            };
        };
        options?: never;
        head?: never;
        /** Change a member's role */
        patch: {
            parameters: {
                query?: never;
                header?: never;
                path: { workspaceId: string; personId: string; };
                cookie?: never;
            };
            requestBody: { content: { "application/json": components["schemas"]["ChangeRoleRequest"] } };
            responses: {
                200: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["Member"] } };
                400: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["ValidationError"] | components["schemas"]["Error"] } };
                401: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["Error"] } };
                403: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["Error"] } };
                404: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["Error"] } };
                409: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["Error"] } };
            };
        };
        trace?: never;
    };
    "/api/workspaces/{workspaceId}/invitations": {
        parameters: { query?: never; header?: never; path?: never; cookie?: never };
        /** Pending invitations */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: { workspaceId: string; };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                200: { headers: { [name: string]: unknown }; content: { "application/json": { data: components["schemas"]["Invitation"][] } } };
                401: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["Error"] } };
                404: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["Error"] } };
            };
        };
        put?: never;
        /** Invite someone */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: { workspaceId: string; };
                cookie?: never;
            };
            requestBody: { content: { "application/json": components["schemas"]["InviteRequest"] } };
            responses: {
                201: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["Invitation"] } };
                400: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["ValidationError"] | components["schemas"]["Error"] } };
                401: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["Error"] } };
                403: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["Error"] } };
                404: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["Error"] } };
                409: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["Error"] } };
                429: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["Error"] } };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workspaces/{workspaceId}/invitations/{invitationId}": {
        parameters: { query?: never; header?: never; path?: never; cookie?: never };
        get?: never;
        put?: never;
        post?: never;
        /** Cancel an invitation */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: { workspaceId: string; invitationId: string; };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                204: { headers: { [name: string]: unknown }; content?: never };
                401: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["Error"] } };
                403: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["Error"] } };
                404: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["Error"] } };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workspaces/{workspaceId}/audit": {
        parameters: { query?: never; header?: never; path?: never; cookie?: never };
        /** Audit log */
        get: {
            parameters: {
                query?: { limit?: number; before?: string; };
                header?: never;
                path: { workspaceId: string; };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                200: { headers: { [name: string]: unknown }; content: { "application/json": { data: components["schemas"]["AuditEntry"][] } } };
                400: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["ValidationError"] | components["schemas"]["Error"] } };
                401: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["Error"] } };
                404: { headers: { [name: string]: unknown }; content: { "application/json": components["schemas"]["Error"] } };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /** @description General error (spec part 7). */
        Error: {
            error: string;
            code: string;
            message: string;
            /** @description Seconds to wait before retrying (429). */
            retry_after?: number;
        };
        /** @description Validation error (400). */
        ValidationError: {
            /** @enum {boolean} */
            success: false;
            error: {
                name?: string;
                message?: string;
                issues: {
                    code?: string;
                    path?: (string | number)[];
                    message: string;
                }[];
            };
        };
        SignInRequest: {
            email: string;
            password: string;
        };
        PasswordResetRequest: {
            email: string;
        };
        PasswordResetConfirmRequest: {
            token: string;
            /** @description 12 to 256 characters. */
            password: string;
        };
        AcceptInvitationRequest: {
            token: string;
            password: string;
            display_name?: string;
        };
        InvitationPreview: {
            email: string;
            /** @enum {string} */
            role: "owner" | "admin" | "member";
            workspace_name: string;
            has_account: boolean;
        };
        SessionPerson: {
            id: string;
            email: string;
            display_name: string | null;
        };
        SessionWorkspace: {
            id: string;
            name: string;
            /** @enum {string} */
            role: "owner" | "admin" | "member";
        };
        Session: {
            person: components["schemas"]["SessionPerson"];
            workspaces: components["schemas"]["SessionWorkspace"][];
            csrf_token: string;
            /** Format: date-time */
            expires_at: string;
        };
        LiveAccess: {
            ok: boolean;
            /** @enum {string|null} */
            code: "api_locked" | null;
            reason: string | null;
        };
        Quota: {
            used: number;
            limit: number | null;
        };
        BotPages: {
            bot_id: string;
            name: string;
            pages: number;
        };
        Usage: {
            messages_this_month: components["schemas"]["Quota"];
            bot_slots: components["schemas"]["Quota"];
            pages_per_bot: {
                limit: number | null;
                bots: components["schemas"]["BotPages"][];
            };
        };
        Workspace: {
            id: string;
            name: string;
            /** @enum {string} */
            role: "owner" | "admin" | "member";
            plan: string;
            billing_status: string;
            /** Format: date-time */
            trial_ends_at: string | null;
            live_access: components["schemas"]["LiveAccess"];
            usage: components["schemas"]["Usage"];
        };
        BotSummary: {
            id: string;
            name: string;
        };
        /** @description An API token as listed (never its secret). */
        ApiToken: {
            id: string;
            name: string;
            /** @description The last characters of the secret, to recognise it. */
            hint: string;
            scopes: ("bots:read" | "bots:write" | "kb:read" | "kb:write" | "chat:invoke" | "conversations:read" | "leads:read" | "analytics:read" | "bookings:read" | "bookings:write")[];
            /** @description Null: every bot of the workspace. */
            bot_ids: string[] | null;
            /** Format: date-time */
            created_at: string;
            last_used_at: string | null;
            expires_at: string | null;
            revoked_at: string | null;
        };
        /** @description A new token: `token` is its secret, shown this once. */
        CreatedApiToken: components["schemas"]["ApiToken"] & {
            token: string;
        };
        CreateApiTokenRequest: {
            name: string;
            scopes: ("bots:read" | "bots:write" | "kb:read" | "kb:write" | "chat:invoke" | "conversations:read" | "leads:read" | "analytics:read" | "bookings:read" | "bookings:write")[];
            bot_ids?: string[] | null;
            expires_in_seconds?: number | null;
        };
        LastDelivery: {
            delivery_id: string;
            event: string;
            event_id: string;
            /** @enum {string} */
            status: "pending" | "sending" | "succeeded" | "failed";
            status_code: number | null;
            error: string | null;
            duration_ms: number | null;
            at: string | null;
        };
        Webhook: {
            id: string;
            name: string;
            url: string;
            events: ("lead.created" | "conversation.handoff" | "message.unanswered" | "ticket.created" | "booking.created")[];
            /** @description Null: every bot of the workspace. */
            bot_id: string | null;
            /** Format: date-time */
            created_at: string;
            last_delivery: components["schemas"]["LastDelivery"] | null;
        };
        CreatedWebhook: components["schemas"]["Webhook"] & {
            secret: string;
            deliveries_enabled: boolean;
        };
        CreateWebhookRequest: {
            name?: string;
            url: string;
            events: ("lead.created" | "conversation.handoff" | "message.unanswered" | "ticket.created" | "booking.created")[];
            bot_id?: string | null;
        };
        WebhookSecret: {
            id: string;
            secret: string;
        };
        DeliveryAttempt: {
            attempt: number;
            /** @enum {string} */
            trigger: "event" | "manual";
            started_at: string;
            finished_at: string | null;
            duration_ms: number | null;
            status_code: number | null;
            error: string | null;
        };
        Delivery: {
            id: string;
            webhook_id: string;
            event: string;
            event_id: string;
            /** @enum {string} */
            status: "pending" | "sending" | "succeeded" | "failed";
            attempts: number;
            status_code: number | null;
            error: string | null;
            duration_ms: number | null;
            last_attempt_at: string | null;
            created_at: string;
            attempt_log: components["schemas"]["DeliveryAttempt"][];
        };
        Member: {
            person_id: string;
            email: string;
            display_name: string | null;
            /** @enum {string} */
            role: "owner" | "admin" | "member";
            /** Format: date-time */
            joined_at: string;
        };
        ChangeRoleRequest: {
            /** @enum {string} */
            role: "owner" | "admin" | "member";
        };
        Invitation: {
            id: string;
            email: string;
            /** @enum {string} */
            role: "owner" | "admin" | "member";
            invited_by: string | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            expires_at: string;
        };
        InviteRequest: {
            email: string;
            /** @enum {string} */
            role: "owner" | "admin" | "member";
        };
        AuditActor: {
            /** @enum {string} */
            kind: "person" | "cli";
            id: string | null;
            label: string;
        };
        AuditEntry: {
            id: string;
            /** Format: date-time */
            at: string;
            actor: components["schemas"]["AuditActor"];
            action: string;
            target_kind: string | null;
            target_id: string | null;
            details: {
                [key: string]: unknown;
            };
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export type operations = Record<string, never>;
