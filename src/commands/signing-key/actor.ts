import type { ServiceActor } from '../../domain/events.js';

/** The service itself, for key changes it makes on its own (the first key at start). */
export const SERVICE_ACTOR: ServiceActor = { actor: 'service', origin: 'local', requestId: null };
