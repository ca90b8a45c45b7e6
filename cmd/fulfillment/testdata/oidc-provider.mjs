// A real OAuth 2.0 authorization server for the end-to-end tests: oidc-provider
// (OpenID certified) issuing RFC 9068 access tokens (typ at+jwt, RS256) by the
// client-credentials grant, as an operator's identity provider would for an
// organization's back office and for a warehouse's management system.
//
// Settings come from the environment:
//   OIDC_PROVIDER_DIR  the folder whose node_modules holds oidc-provider (scripts/tools.sh oidc-provider)
//   PORT               the loopback port to listen on
//   RESOURCE           the resource indicator: the tokens' audience
//   KEYS               a JSON array of RSA private JWKs, each with a kid; the first signs
//   CLIENTS            a JSON array of {client_id, client_secret, claims: {...}}: claims are added to
//                      every access token of that client (the organization or warehouse claim)
// It prints "listening" on stdout once it accepts connections.
import { pathToFileURL } from 'node:url';
import path from 'node:path';

const dir = process.env.OIDC_PROVIDER_DIR;
const { default: Provider } = await import(pathToFileURL(path.join(dir, 'node_modules/oidc-provider/lib/index.js')));

const port = Number(process.env.PORT);
const issuer = `http://127.0.0.1:${port}`;
const resource = process.env.RESOURCE;
const keys = JSON.parse(process.env.KEYS);
const clients = JSON.parse(process.env.CLIENTS);
const scopes = 'locations invoices shipments inventory warehouse';

const provider = new Provider(issuer, {
  clients: clients.map((c) => ({
    client_id: c.client_id,
    client_secret: c.client_secret,
    grant_types: ['client_credentials'],
    redirect_uris: [],
    response_types: [],
    scope: scopes,
  })),
  jwks: { keys },
  scopes: scopes.split(' '),
  features: {
    devInteractions: { enabled: false },
    clientCredentials: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => resource,
      useGrantedResource: () => true,
      getResourceServerInfo: (ctx, indicator) => {
        if (indicator !== resource) throw new Error(`unknown resource ${indicator}`);
        return { scope: scopes, audience: resource, accessTokenFormat: 'jwt', accessTokenTTL: 600, jwt: { sign: { alg: 'RS256' } } };
      },
    },
  },
  extraTokenClaims: (ctx, token) => clients.find((c) => c.client_id === token.clientId)?.claims ?? {},
});
provider.proxy = false;
const server = provider.listen(port, '127.0.0.1', () => console.log('listening'));
for (const sig of ['SIGTERM', 'SIGINT']) process.on(sig, () => server.close(() => process.exit(0)));
