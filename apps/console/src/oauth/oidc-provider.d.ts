// oidc-provider 9 ships no TypeScript declarations: the small part the console uses, loosely typed.
declare module 'oidc-provider' {
  /* eslint-disable @typescript-eslint/no-explicit-any */
  export class Provider {
    constructor(issuer: string, configuration: Record<string, any>);
    proxy: boolean;
    callback(): (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => void;
    use(middleware: (ctx: any, next: () => Promise<void>) => Promise<void>): this;
    on(event: string, listener: (...args: any[]) => void): this;
    cookieName(name: string): string;
    interactionDetails(req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse): Promise<any>;
    Interaction: { find(uid: string): Promise<any> };
    Client: { find(id: string): Promise<any> };
    Grant: { new (init: { accountId: string; clientId: string }): any; find(id: string): Promise<any> };
    AccessToken: { find(value: string): Promise<any> };
  }
  export const errors: Record<string, new (description?: string, detail?: string) => Error>;
  export default Provider;
}
