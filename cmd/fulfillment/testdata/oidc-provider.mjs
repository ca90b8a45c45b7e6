// A real OpenID provider for the end-to-end tests: oidc-provider (OpenID
// certified), for two kinds of client.
//
// 1. Machines (the IdP test of the API): RFC 9068 access tokens (typ at+jwt,
//    RS256) by the client-credentials grant, as an operator's identity provider
//    would issue for an organization's back office or a warehouse's system.
// 2. People (the console's sign-in): one web client of the authorization code
//    flow with PKCE (S256), whose users sign in on the provider's own
//    development login form (devInteractions: any login, any password) and are
//    granted openid, email and profile without a consent page (a first-party
//    client). The ID token carries sub, email and the roles claim `roles` of
//    the account (the profile scope's).
//
// Settings come from the environment:
//   OIDC_PROVIDER_DIR  the folder whose node_modules holds oidc-provider (scripts/tools.sh oidc-provider)
//   PORT               the loopback port to listen on; the issuer is http://127.0.0.1:PORT
//   KEYS               a JSON array of RSA private JWKs, each with a kid; the first signs
//   RESOURCE           machines: the resource indicator, the access tokens' audience (optional)
//   CLIENTS            machines: a JSON array of {client_id, client_secret, claims: {...}}: claims are
//                      added to every access token of that client (the organization or warehouse
//                      claim); default []
//   WEB_CLIENT         people: a JSON object {client_id, client_secret, redirect_uris: [...]}, the
//                      console's client (redirect URI: the console's origin + /auth/callback); optional
//   ACCOUNTS           people: a JSON object login → {email, roles: [...]}: what the ID token says of
//                      whoever signs in with that login; any other login signs in with no roles.
//                      Default {}
// For example, the console's tests run it with
//   WEB_CLIENT='{"client_id":"console","client_secret":"console-secret-0123456789",
//                "redirect_uris":["http://127.0.0.1:8081/auth/callback"]}'
//   ACCOUNTS='{"vera":{"email":"vera@example.com","roles":["viewer"]},
//              "bill":{"email":"bill@example.com","roles":["billing"]}}'
// It prints "listening" on stdout once it accepts connections.
import { pathToFileURL } from 'node:url';
import path from 'node:path';

const dir = process.env.OIDC_PROVIDER_DIR;
const { default: Provider } = await import(pathToFileURL(path.join(dir, 'node_modules/oidc-provider/lib/index.js')));

const port = Number(process.env.PORT);
const issuer = `http://127.0.0.1:${port}`;
const resource = process.env.RESOURCE;
const keys = JSON.parse(process.env.KEYS);
const clients = JSON.parse(process.env.CLIENTS || '[]');
const webClient = process.env.WEB_CLIENT ? JSON.parse(process.env.WEB_CLIENT) : undefined;
const accounts = JSON.parse(process.env.ACCOUNTS || '{}');
const apiScopes = 'locations invoices shipments inventory warehouse';
const peopleScopes = 'openid email profile';

const allClients = clients.map((c) => ({
  client_id: c.client_id,
  client_secret: c.client_secret,
  grant_types: ['client_credentials'],
  redirect_uris: [],
  response_types: [],
  scope: apiScopes,
}));
if (webClient) {
  allClients.push({
    client_id: webClient.client_id,
    ...(webClient.client_secret
      ? { client_secret: webClient.client_secret }
      : { token_endpoint_auth_method: 'none' }),
    grant_types: ['authorization_code'],
    response_types: ['code'],
    redirect_uris: webClient.redirect_uris,
    scope: peopleScopes,
  });
}

const provider = new Provider(issuer, {
  clients: allClients,
  jwks: { keys },
  scopes: [...apiScopes.split(' '), ...peopleScopes.split(' ')],
  claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'roles'] },
  // The ID token of the code flow carries the scopes' claims itself, as the
  // console reads them (a provider that keeps them for userinfo works too:
  // the console asks it when the ID token lacks the roles claim).
  conformIdTokenClaims: false,
  pkce: { required: () => true },
  findAccount: (ctx, id) => ({
    accountId: id,
    claims: () => {
      const a = accounts[id] ?? {};
      return { sub: id, name: id, email: a.email, email_verified: Boolean(a.email), roles: a.roles ?? [] };
    },
  }),
  // The console is a first-party client: its users are granted its scopes
  // without a consent page.
  loadExistingGrant: async (ctx) => {
    const grantId = ctx.oidc.result?.consent?.grantId || ctx.oidc.session.grantIdFor(ctx.oidc.client.clientId);
    if (grantId) return ctx.oidc.provider.Grant.find(grantId);
    if (webClient && ctx.oidc.client.clientId === webClient.client_id) {
      const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client.clientId, accountId: ctx.oidc.session.accountId });
      grant.addOIDCScope(peopleScopes);
      grant.addOIDCClaims(['roles']);
      await grant.save();
      return grant;
    }
    return undefined;
  },
  features: {
    devInteractions: { enabled: Boolean(webClient) },
    clientCredentials: { enabled: true },
    resourceIndicators: {
      enabled: true,
      // Machines' tokens are for the API; people's access tokens are the
      // provider's own (userinfo).
      defaultResource: (ctx, client) => (client?.grantTypes?.includes('client_credentials') ? resource : undefined),
      useGrantedResource: () => true,
      getResourceServerInfo: (ctx, indicator) => {
        if (!resource || indicator !== resource) throw new Error(`unknown resource ${indicator}`);
        return { scope: apiScopes, audience: resource, accessTokenFormat: 'jwt', accessTokenTTL: 600, jwt: { sign: { alg: 'RS256' } } };
      },
    },
  },
  extraTokenClaims: (ctx, token) => clients.find((c) => c.client_id === token.clientId)?.claims ?? {},
});
provider.proxy = false;
const server = provider.listen(port, '127.0.0.1', () => console.log('listening'));
for (const sig of ['SIGTERM', 'SIGINT']) process.on(sig, () => server.close(() => process.exit(0)));
