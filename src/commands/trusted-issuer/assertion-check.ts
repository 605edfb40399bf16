import { decodeJwt, decodeProtectedHeader, errors, jwtVerify, type JWTPayload } from 'jose';
import { fetchBusy } from '#outbound/guarded-fetcher.js';
import { joseRefusal } from '#verifier/refusal.js';
import { UnavailableError } from '../../errors/errors.js';
import type { IssuerRule } from '../../domain/event-data/trusted-issuer.js';
import type { TrustedIssuerState } from '../../domain/trusted-issuer/decide.js';
import { matchingRule } from '../../domain/trusted-issuer/match.js';
import { dateOfSeconds, secondsOf } from '../../domain/times.js';
import { ASSERTION_ALGORITHMS, audienceIsOurIssuer } from '../client-authentication/assertion.js';
import type { TrustedIssuerPorts } from './ports.js';
import type { Credential } from '../../domain/credential/state.js';
import type { AssertionEvidence } from '../../domain/event-data/token.js';
import { allowedScopes, issuedTo, ruleCredential, ruleScopes } from '../../domain/policy.js';
import type { CommandContext } from '../context.js';

/** A refused assertion: the claim at fault (recorded) and why, the `error_description`. */
export class AssertionRefused extends Error {
  /** The client the assertion claimed to be: its failure is recorded. */
  clientId: string | undefined;
  constructor(
    readonly claim: string,
    reason: string,
    message = `${claim}: ${reason}`,
  ) {
    super(message);
  }
}

/** An assertion judged good: whose, which rule matched, its claims. */
export interface AcceptedAssertion {
  readonly issuer: TrustedIssuerState;
  readonly rule: IssuerRule;
  readonly claims: JWTPayload & {
    readonly sub: string;
    readonly jti: string;
    readonly exp: number;
  };
}

const refused = (claim: string, reason: string): never => {
  throw new AssertionRefused(claim, reason);
};

/**
 * What an unknown issuer, a signature not by its keys and an unknown client all answer (the
 * recorded claim tells them apart for the space's admins): no probing which issuers or clients are.
 */
export const untrustedRefusal = (claim: 'iss' | 'signature') =>
  new AssertionRefused(claim, '', 'signature: not by a key of an issuer this space trusts');

const untrusted = (claim: 'iss' | 'signature'): never => {
  throw untrustedRefusal(claim);
};

/**
 * RFC 7523 §3 for an issuer's assertion: trusted `iss`, its key, one `aud`, `exp` within the
 * lifetime, no future `nbf`/`iat`, `sub` and `jti`, a rule matched. The jti is spent by the
 * caller. Throws {@link AssertionRefused} naming the claim at fault. `authenticatesTo`: the
 * assertion authenticates a client, so its `aud` is this issuer identifier alone (rfc7523bis).
 */
export async function checkAssertion(
  ports: TrustedIssuerPorts,
  spaceId: string,
  assertion: string,
  nowMs: number,
  authenticatesTo?: string,
): Promise<AcceptedAssertion> {
  let unverified: JWTPayload;
  let alg: unknown;
  try {
    unverified = decodeJwt(assertion);
    alg = decodeProtectedHeader(assertion).alg;
  } catch {
    return refused('assertion', 'not a JWT');
  }
  const iss = typeof unverified.iss === 'string' ? unverified.iss : refused('iss', 'required');
  const issuer = await ports.find(spaceId, iss);
  // Whose rule the claims, unverified, would match: a forgery's failure is that client's to see.
  const suspect = issuer && matchingRule(issuer.definition, unverified)?.client_id;
  try {
    // Answered alike whether the issuer is trusted or not: no probing which are.
    if (!(ASSERTION_ALGORITHMS as readonly unknown[]).includes(alg))
      refused('alg', `one of ${ASSERTION_ALGORITHMS.join(', ')}`);
    return await verified(ports, issuer ?? untrusted('iss'), assertion, nowMs, authenticatesTo);
  } catch (error) {
    if (error instanceof AssertionRefused) error.clientId ??= suspect;
    throw error;
  }
}

async function verified(
  ports: TrustedIssuerPorts,
  issuer: TrustedIssuerState,
  assertion: string,
  nowMs: number,
  authenticatesTo: string | undefined,
): Promise<AcceptedAssertion> {
  const { iss } = issuer.definition;
  const keysOf = (refresh: boolean) =>
    ports.keys.keysOf(issuer, { refresh }).catch((error: unknown) => {
      const why = `the keys of ${iss} could not be had: ${(error as Error).message}`;
      // Our bound, not the caller's doing: a 503, no refusal spending its budget.
      if (fetchBusy(error)) throw new UnavailableError(why);
      return refused('signature', why);
    });
  const verify = async (refresh: boolean) =>
    jwtVerify(assertion, await keysOf(refresh), {
      issuer: iss,
      algorithms: [...ASSERTION_ALGORITHMS],
      requiredClaims: ['exp', 'sub', 'jti'],
      clockTolerance: ports.clockSkewSeconds,
      currentDate: new Date(nowMs),
    });
  let payload: JWTPayload;
  try {
    const verified = await verify(false).catch((error: unknown) => {
      // A key not held may be a rotation at the issuer: fetch its keys again, once.
      if (error instanceof errors.JWKSNoMatchingKey) return verify(true);
      throw error;
    });
    payload = verified.payload;
  } catch (error) {
    if (error instanceof AssertionRefused) throw error;
    const refusal = joseRefusal(error);
    if (!refusal) throw error;
    // Claims are judged once the signature held: anything before it is the one answer.
    return refusal.claim === 'signature' || refusal.claim === 'alg'
      ? untrusted('signature')
      : refused(refusal.claim, `the assertion ${refusal.reason}`);
  }
  return judged(ports, issuer, payload, nowMs, authenticatesTo);
}

/** The claims jose does not judge: `aud`'s one value, the lifetime, `iat` ahead, the rule. */
function judged(
  ports: TrustedIssuerPorts,
  issuer: TrustedIssuerState,
  payload: JWTPayload,
  nowMs: number,
  authenticatesTo: string | undefined,
): AcceptedAssertion {
  const { aud, exp, iat, sub, jti } = payload;
  if (authenticatesTo !== undefined) {
    if (!audienceIsOurIssuer(aud, authenticatesTo))
      refused('aud', `must be ${authenticatesTo}, one string, to authenticate a client`);
  } else {
    // One value; a list of one is that value (Kubernetes and SPIRE always write a list).
    if (Array.isArray(aud) && aud.length !== 1) refused('aud', 'must be one value, not several');
    const [only] = Array.isArray(aud) ? aud : [aud];
    if (only !== issuer.definition.audience)
      refused('aud', `must be ${issuer.definition.audience}`);
  }
  const now = secondsOf(nowMs);
  if (iat !== undefined && iat > now + ports.clockSkewSeconds) refused('iat', 'in the future');
  const own = issuer.definition.max_lifetime_seconds;
  const lifetime =
    own === undefined ? ports.maxLifetimeSeconds : Math.min(own, ports.lifetimeCeiling);
  if (exp! - (iat ?? now) > lifetime)
    refused('exp', `more than ${lifetime} s past iat: too long-lived`);
  if (typeof sub !== 'string' || typeof jti !== 'string') return refused('sub', 'required');
  const rule =
    matchingRule(issuer.definition, payload) ??
    refused('sub', "no rule of this issuer matches the assertion's claims");
  return { issuer, rule, claims: { ...payload, sub, jti, exp: exp! } };
}

/** A credential an accepted assertion acts as, and the evidence its issuance records. */
export interface AssertedCredential {
  /** The matched rule's credential, its scopes narrowed to the rule's. */
  readonly credential: Credential;
  readonly evidence: AssertionEvidence;
}

/** The one judgement of an issuer's assertion (§2.1, §2.2): checked, client held to rule, jti spent. */
export async function acceptAssertion(
  ctx: CommandContext,
  command: {
    readonly spaceId: string;
    readonly assertion: string;
    readonly named?: string;
    /** It authenticates the named client (RFC 7523 §2.2), not a grant: `aud` our issuer alone. */
    readonly authenticates?: true;
    /** The request presenting it: the jti is spent for that request. */
    readonly requestId: string;
  },
): Promise<AssertedCredential> {
  const ports = ctx.trustedIssuers ?? refused('iss', 'this process trusts no issuers');
  const { spaceId, named } = command;
  const ours = command.authenticates ? ctx.issuer : undefined;
  const accepted = await checkAssertion(ports, spaceId, command.assertion, ctx.clock.now(), ours);
  const { rule, issuer, claims } = accepted;
  const failing = (claim: string, reason: string) => {
    const refusal = new AssertionRefused(claim, reason);
    refusal.clientId = named ?? rule.client_id;
    throw refusal;
  };
  if (named !== undefined && !issuedTo({ clientId: rule.client_id }, named)) {
    failing('client_id', `the matched rule ${rule.id} names another client`);
  }
  const credential =
    ruleCredential(await ctx.credentials.find(rule.client_id), issuer.spaceId) ??
    failing('sub', `rule ${rule.id}'s credential is not active in this space`);
  const fresh = await ctx.usedOnce.remember(
    {
      spaceId,
      holder: `issuer:${issuer.issuerId}`,
      id: claims.jti,
      expiresAt: dateOfSeconds(claims.exp + ports.clockSkewSeconds),
    },
    command.requestId,
  );
  if (!fresh) failing('jti', 'already used: an assertion is good for one request');
  return {
    credential: {
      ...credential,
      scopes: ruleScopes(allowedScopes(ctx.scopeCatalog, credential), rule),
    },
    evidence: {
      issuer_id: issuer.issuerId,
      iss: issuer.definition.iss,
      sub: claims.sub,
      jti: claims.jti,
      rule: rule.id,
    },
  };
}
