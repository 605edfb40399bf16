/**
 * Who may do what, in one place: the HTTP edge, the deciders and the command handlers ask here,
 * so a rule is never written twice and can be read whole. One file per subject in ./policy/;
 * test/unit/policy-home.test.ts fails on a role, space, scope, kind or revocation compared
 * anywhere else in src/.
 */
export * from './policy/spaces-and-roles.js';
export * from './policy/tokens.js';
export * from './policy/scopes.js';
export * from './policy/audit-reads.js';
export * from './policy/routes.js';
export * from './policy/issuers.js';
export * from './policy/delegation.js';
