/** The SecretBox that seals and opens connection credentials (the installation's key). */
export const SECRET_BOX = Symbol('SECRET_BOX');
