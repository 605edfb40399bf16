/** How a dashboard user is named as the actor of the events they cause. */
export const userActor = (subject: string): string => `user:${subject}`;

/** How a client application is named as the actor of the events it causes. */
export const clientActor = (clientId: string): string => `client:${clientId}`;

/** Whoever holds a polled stream's secret, as the actor of its acknowledgements. */
export const streamSecretActor = (sinkId: string): string => `stream-secret:${sinkId}`;
