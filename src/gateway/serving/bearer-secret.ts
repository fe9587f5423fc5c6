/**
 * The shortest bearer secret an endpoint accepts: a fixed secret must be as hard to guess as the random ones
 * the gateway makes (32 random bytes). Both the action's `endpoint-secrets` input and the gateway itself hold
 * to it.
 */
export const MIN_SECRET_LENGTH = 32;
