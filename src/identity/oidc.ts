import * as client from 'openid-client';

/** BULWARK_OIDC_*: the identity provider people may sign in through. */
export interface OidcSettings {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** What the sign-in button calls it ("Okta", "Google Workspace"…). */
  name: string;
}

/** What the browser must bring back to the callback, kept in a short-lived cookie between the two. */
export interface PendingSignIn {
  state: string;
  nonce: string;
  codeVerifier: string;
  /** A console path to return to afterwards. */
  returnTo: string;
}

/** The person the provider vouches for. */
export interface ProvidedIdentity {
  subject: string;
  email: string;
  name: string | null;
}

/** Why a sign-in through the provider failed, as the sign-in page names it (it shows a fixed message per reason). */
export type OidcFailure = 'provider_unreachable' | 'provider_refused' | 'no_email' | 'unverified_email';

export class OidcError extends Error {
  readonly reason: OidcFailure;

  constructor(reason: OidcFailure, message: string) {
    super(message);
    this.reason = reason;
  }
}

const LOOPBACK = /^(?:localhost|127\.\d+\.\d+\.\d+|\[::1\])$/;

/**
 * OpenID Connect sign-in (authorization code flow with PKCE, state and nonce) through openid-client.
 * The provider's metadata is discovered from the issuer on first use and kept; plain http is accepted
 * only from a loopback issuer (a provider on this machine).
 */
export class OidcSignIn {
  readonly name: string;
  private readonly settings: OidcSettings;
  private configuration: Promise<client.Configuration> | undefined;

  constructor(settings: OidcSettings) {
    this.settings = settings;
    this.name = settings.name;
  }

  private config(): Promise<client.Configuration> {
    if (!this.configuration) {
      const issuer = new URL(this.settings.issuer);
      const insecure = issuer.protocol === 'http:' && LOOPBACK.test(issuer.hostname);
      this.configuration = client
        .discovery(issuer, this.settings.clientId, this.settings.clientSecret, undefined, insecure ? { execute: [client.allowInsecureRequests] } : undefined)
        .catch((error: unknown) => {
          this.configuration = undefined;
          throw new OidcError('provider_unreachable', `The identity provider ${this.settings.issuer} could not be reached: ${(error as Error).message}`);
        });
    }
    return this.configuration;
  }

  /** Where to send the browser, and what to remember until it comes back. */
  async start(redirectUri: string, returnTo: string): Promise<{ url: string; pending: PendingSignIn }> {
    const config = await this.config();
    const pending = { state: client.randomState(), nonce: client.randomNonce(), codeVerifier: client.randomPKCECodeVerifier(), returnTo };
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope: 'openid email profile',
      state: pending.state,
      nonce: pending.nonce,
      code_challenge: await client.calculatePKCECodeChallenge(pending.codeVerifier),
      code_challenge_method: 'S256',
    });
    return { url: url.href, pending };
  }

  /** Checks the provider's answer (state, code, ID token signature, issuer, audience, nonce) and says who signed in. */
  async finish(callbackUrl: URL, redirectUri: string, pending: PendingSignIn): Promise<ProvidedIdentity> {
    const config = await this.config();
    let claims;
    try {
      const tokens = await client.authorizationCodeGrant(
        config,
        callbackUrl,
        { expectedState: pending.state, expectedNonce: pending.nonce, pkceCodeVerifier: pending.codeVerifier, idTokenExpected: true },
        { redirect_uri: redirectUri },
      );
      claims = tokens.claims();
    } catch (error) {
      throw new OidcError('provider_refused', `Sign-in through ${this.name} failed: ${(error as Error).message}`);
    }
    const email = typeof claims?.email === 'string' ? claims.email : undefined;
    if (!claims || !email) throw new OidcError('no_email', `${this.name} did not share an email address (the "email" scope)`);
    // Only an address the provider says it verified names an account here: a missing claim is not a yes.
    if (claims.email_verified !== true) throw new OidcError('unverified_email', `${this.name} has not verified the email address ${email}`);
    return { subject: claims.sub, email, name: typeof claims.name === 'string' ? claims.name : null };
  }
}
