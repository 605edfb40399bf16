/**
 * The access tokens' signature algorithm (RFC 9068 JWTs, Ed25519). Its own module: the verifier
 * kit needs it and must not load the signing-key store (kysely, pg) to get it.
 */
export const ACCESS_TOKEN_ALG = 'EdDSA';
