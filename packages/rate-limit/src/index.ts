export * from './cluster-peers.js';
export * from './fair-queue.js';
export * from './notify-payload.js';
export * from './peers.js';
export * from './postgres-peers.js';
export * from './sliding-window.js';
