/** Who may do what, in one place; policy-home.test.ts refuses such rules elsewhere. */
export * from './policy/spaces-and-roles.js';
export * from './policy/tokens.js';
export * from './policy/scopes.js';
export * from './policy/audit-reads.js';
export * from './policy/routes.js';
export * from './policy/issuers.js';
export * from './policy/delegation.js';
export * from './policy/authorization.js';
export * from './policy/signal-streams.js';
