// Benchmark-only dependencies that ship no type declarations.
declare module 'autocannon';
declare module 'oidc-provider';
