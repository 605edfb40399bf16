export * from './pkce.js';
export * from './redirect-uri.js';
export * from './request.js';
export * from './response.js';
export * from './secrets.js';
