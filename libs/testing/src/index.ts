export * from './integration/databases';
